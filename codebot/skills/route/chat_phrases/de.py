"""Small talk in German: the phrases of `chat_phrases`."""

from __future__ import annotations

PHRASES: tuple[str, ...] = (
    r"hallo|hi|moin|servus|gr[üu]ß\s+gott|guten\s+(?:morgen|tag|abend)|tsch[üu]ss|bis\s+sp[äa]ter",
    r"danke(?:\s+sch[öo]n)?|dankesch[öo]n|vielen\s+dank|besten\s+dank|merci",
    r"tausend\s+dank|danke\s+vielmals|(?:herzlichen|vielen\s+lieben)\s+dank",
    r"genau\s+das\s+(?:hab|habe)\s+ich\s+gebraucht|genau\s+(?:das|was)\s+ich\s+gebraucht\s+habe",
    r"ok|okay|alles\s+klar|klar|verstanden|super|perfekt|toll|prima|gut|sehr\s+gut|passt|ja",
    r"(?:hat|es)\s+(?:geklappt|funktioniert)|klappt|funktioniert(?:\s+jetzt)?|zusammen|leute",
    r"passt\s+(?:so|schon)|gut\s+so|(?:das\s+)?l[äa]uft(?:\s+jetzt)?|geht\s+(?:klar|jetzt)",
    r"alles\s+gut|erledigt|bis\s+morgen|sch[öo]nen\s+feierabend|gute\s+arbeit|danke?\s+dir",
    r"wie\s+geht(?:'s|\s+es(?:\s+dir)?)?|was\s+geht|na|bei\s+(?:dir|euch|ihnen)",
    # calling it a day: "Feierabend für heute", "ich mach Schluss"
    r"(?:so,?\s+)?feierabend(?:\s+f[üu]r\s+heute)?|(?:ich\s+)?mach(?:e)?\s+(?:feierabend|schluss)",
    # compliments and wishes: "du bist spitze", "schönen Tag noch", "gleichfalls"
    r"du\s+bist\s+(?:echt\s+)?(?:spitze|klasse|genial|super|der\s+beste|die\s+beste)",
    r"spitze|klasse|genial|einwandfrei|echt|wirklich|gleichfalls|dir\s+auch",
    r"sch[öo]nen\s+(?:tag|abend|sonntag|wochenende)(?:\s+noch)?",
    r"sorry|entschuldigung|tut\s+mir\s+leid|mein\s+fehler|haha(?:ha)*",
    r"(?:sorry\s+)?f[üu]r\s+die\s+versp[äa]tung|(?:ich\s+)?muss\s+los|bin\s+weg",
    # why it was late: "war im Meeting"
    r"(?:ich\s+)?war\s+(?:in\s+einem\s+(?:meeting|termin)|im\s+meeting|besch[äa]ftigt|unterwegs)",
    r"(?:lief|l[äa]uft|ging|klappte)?\s*auf\s+anhieb|passt\s+mir",
    # "you saved my day", "today", see you on a day, rest well: "du hast mir echt den Tag
    # gerettet", "wie geht's dir heute", "bis Montag", "erhol dich gut"
    r"(?:damit\s+)?(?:hast\s+du|du\s+hast)\s+mir\s+(?:echt\s+|wirklich\s+|gerade\s+)?den\s+"
    r"(?:tag|abend|morgen|freitag)\s+gerettet|(?:mein\s+)?lebensretter|heute",
    r"bis\s+(?:montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|bald|dann|gleich"
    r"|n[äa]chste\s+woche)|erhol\s+dich(?:\s+gut)?|schlaf\s+gut|mach'?s\s+gut",
    # understanding, a day, coffee first: "ach so", "jetzt verstehe ich", "endlich Freitag"
    r"ach\s+so|jetzt\s+(?:verstehe\s+ich(?:\s+es)?|ist\s+(?:es\s+)?klar)|verstehe|leuchtet\s+ein",
    r"(?:endlich\s+)?freitag|wie\s+(?:war|l[äa]uft)\s+(?:eigentlich\s+)?(?:dein|ihr|euer)\s+(?:tag|wochenende|urlaub|abend)|erst\s+mal\s+(?:ein\s+)?kaffee",
    r"puh|uff|was\s+f[üu]r\s+eine\s+(?:lange\s+)?woche|lange\s+woche",
    r"(?:ich\s+)?(?:geh|gehe)\s+(?:mal\s+)?(?:essen|mittagessen|in\s+die\s+mittagspause)|mittagspause",
    r"(?:sorry\s+)?f[üu]r\s+(?:die|meine)\s+nachricht\s+(?:vorhin|von\s+eben)"
    r"|(?:ich\s+)?war\s+(?:genervt|gestresst|frustriert|m[üu]de)",
    # "so ist es perfekt", "ich verstehe, was du meinst", "was für ein Tag… so", "bis
    # morgen dann", "sorry, dass ich so spät antworte, war den ganzen Tag in Meetings",
    # "auf gute Zusammenarbeit"
    r"so\s+ist\s+(?:es|das)\s+(?:perfekt|gut|super)|(?:das\s+)?ist\s+perfekt(?:\s+so)?|so",
    r"(?:ich\s+)?(?:verstehe|wei[ßs]|sehe?),?\s+was\s+du\s+meinst|was\s+f[üu]r\s+ein\s+(?:langer\s+)?tag",
    r"bis\s+morgen\s+dann|dann\s+bis\s+morgen|auf\s+(?:eine\s+)?gute\s+zusammenarbeit",
    r"(?:sorry|entschuldig(?:e|ung)),?\s+dass\s+ich\s+(?:so\s+)?sp[äa]t\s+(?:antworte|dran\s+bin)",
    r"(?:ich\s+)?war\s+den\s+ganzen\s+tag\s+(?:in|im)\s+(?:meetings?|besprechungen|terminen)",
    # "ab hier übernehme ich", "endlich! der Bug hat mich den ganzen Nachmittag gekostet",
    # "schönes Wetter heute", "du rettest mir die Demo morgen", "wie läuft's so", "dank dir
    # komme ich heute pünktlich raus"
    r"ab\s+hier\s+(?:übernehme|mache)\s+ich|endlich",
    r"(?:der|dieser)\s+bug\s+hat\s+mich\s+den\s+ganzen\s+(?:nachmittag|vormittag|tag)\s+gekostet",
    r"sch[öo]nes\s+wetter(?:\s+heute)?|du\s+rettest\s+mir\s+die\s+(?:demo|pr[äa]sentation)(?:\s+morgen)?",
    r"wie\s+l[äa]uft'?s(?:\s+so)?|dank\s+dir|(?:ich\s+komme|komme\s+ich)\s+(?:heute\s+)?"
    r"p[üu]nktlich\s+raus",
    # "Montagsblues, mein Kopf ist noch nicht wach", "ich geh jetzt essen", "falsch eingefügt,
    # ignorier das", "so heiß heute, der Ventilator ist kaputt"
    r"montagsblues|mein\s+kopf\s+ist\s+noch\s+nicht\s+wach|ich\s+geh(?:e)?\s+(?:jetzt\s+)?essen",
    r"falsch\s+eingef[üu]gt|ignorier(?:\s+(?:das|es))?|(?:es\s+ist\s+)?(?:so|echt)\s+(?:hei[ßs]|kalt)(?:\s+heute)?"
    r"|der\s+ventilator\s+ist\s+kaputt|ups|hoppla",
    # "vergiss es, schon gut", "egal, macht nichts", "bin total platt, keine Lust mehr zu coden"
    r"vergiss\s+(?:es|das)|schon\s+gut|egal|macht\s+nichts|nicht\s+so\s+wichtig|lass\s+(?:es|mal)(?:\s+gut\s+sein)?",
    r"(?:ich\s+)?bin\s+(?:total\s+|v[öo]llig\s+|echt\s+|so\s+)?(?:platt|m[üu]de|kaputt|erledigt|durch)"
    r"|keine\s+lust\s+(?:mehr\s+)?(?:zu\s+coden|zum\s+coden|zu\s+arbeiten|auf\s+code)",
    # "es regnet schon wieder, null Bock"
    r"(?:es\s+)?regnet(?:\s+schon)?(?:\s+wieder)?|(?:null|kein(?:en)?)\s+bock",
    # "vergiss es, ich hab's mir anders überlegt", "heute ist echt nicht mein Tag"
    r"(?:ich\s+)?(?:hab|habe)(?:'s|\s+es)?\s+mir\s+anders\s+[üu]berlegt"
    r"|(?:heute\s+)?(?:ist\s+)?(?:echt\s+|einfach\s+|wirklich\s+)?nicht\s+mein\s+tag",
    # "vergiss meine letzte Anfrage", "die Anfrage von eben kannst du streichen"
    r"(?:vergiss|ignorier(?:e)?|streich(?:e)?)\s+(?:meine\s+)?(?:letzte|vorige|vorherige)\s+"
    r"(?:anfrage|nachricht|frage|bitte)|die\s+(?:anfrage|frage|bitte)\s+von\s+(?:eben|vorhin)\s+"
    r"(?:kannst\s+du\s+)?(?:streichen|vergessen|ignorieren|stornieren)",
    # "vielen Dank für die Geduld mit mir", "heute schüttet's schon wieder"
    r"(?:danke\s+)?f[üu]r\s+(?:die|deine|ihre)\s+geduld(?:\s+mit\s+mir)?"
    r"|(?:es\s+)?sch[üu]ttet(?:'s|\s+es)?(?:\s+schon)?(?:\s+wieder)?(?:\s+ohne\s+ende|\s+wie\s+aus\s+eimern)?",
    # "gut erklärt", "alle Tests sind jetzt grün", "wie läuft dein Donnerstag so?", "hier
    # kämpfe ich mich durch die Meetings"
    r"(?:super|gut|toll|klasse)\s+erkl[äa]rt|die\s+erkl[äa]rung\s+war\s+(?:echt\s+|sehr\s+|super\s+)?(?:klar"
    r"|verst[äa]ndlich|hilfreich)|wie\s+auch\s+immer|jedenfalls|langer\s+tag|(?:(?:jetzt\s+)?(?:laufen|sind)\s+"
    r"(?:jetzt\s+)?(?:endlich\s+)?)?alle\s+tests(?:\s+(?:laufen|sind))?\s+(?:jetzt\s+)?(?:endlich\s+)?gr[üu]n(?:\s+durch)?|wie\s+l[äa]uft\s+(?:dein|der"
    r"|die|euer)\s+(?:tag|woche|montag|dienstag|mittwoch|donnerstag|freitag)(?:\s+so)?|hier\s+(?:[üu]berlebe"
    r"\s+ich|k[äa]mpfe\s+ich\s+mich\s+durch)\s+(?:gerade\s+)?die\s+meetings",
    # "es regnet schon wieder in Köln", "ich hoffe, deine Woche läuft besser als meine", "ach,
    # hat sich von selbst erledigt", "alles fit bei dir?"
    r"(?:es\s+)?regnet(?:\s+schon)?(?:\s+wieder)?\s+in\s+[^\W\d_]+|(?:ich\s+)?hoffe,?\s+dein(?:e)?\s+(?:tag|woche)"
    r"\s+l[äa]uft\s+besser\s+als\s+mein(?:er|e)|ach|(?:das\s+)?hat\s+sich\s+(?:von\s+selbst\s+|schon\s+)?erledigt"
    r"|alles\s+fit(?:\s+bei\s+dir)?",
    # "ich bin dann mal offline", "so heiß heute in Leipzig"
    r"ich\s+bin\s+(?:dann\s+)?(?:mal\s+)?(?:offline|weg)|so\s+(?:hei[ßs]|kalt)\s+(?:heute\s+)?in\s+[^\W\d_]+",
    # "ich hol mir mal 'nen Kaffee"
    r"ich\s+hol(?:e)?\s+mir\s+(?:mal\s+)?(?:einen|'?nen|ein)\s+(?:kaffee|tee)",
    # "du hast mir den Nachmittag versüßt", "Top Erklärung, genau so wollte ich das haben"
    r"du\s+hast\s+mir\s+den\s+(?:tag|nachmittag|morgen|abend)\s+(?:vers[üu][ßs]t|gerettet)"
    r"|top[- ]?erkl[äa]rung|genau\s+so\s+wollte\s+ich\s+(?:das|es)(?:\s+haben)?",
    # "Top, danke für die schnelle Hilfe"
    r"(?:danke\s+)?f[üu]r\s+(?:die|deine|eure|ihre)\s+(?:schnelle\s+|tolle\s+|gro[ßs]e\s+)?(?:hilfe|unterst[üu]tzung|antwort)",
    # the weather asked: "Weißt du, wie das Wetter morgen in Hamburg wird?", "regnet es morgen?"
    r"(?:wei[ßs]t\s+du,?\s+)?wie\s+(?:wird\s+)?(?:das\s+)?wetter(?:\s+(?:heute|morgen|am\s+wochenende))?"
    r"(?:\s+in\s+[^\W\d_]+)?(?:\s+(?:wird|ist))?|regnet\s+es\s+(?:heute|morgen)(?:\s+in\s+[^\W\d_]+)?",
    # "der Build ist wieder grün", "das klärt es"
    r"(?:der|die)\s+(?:build|pipeline|ci)\s+ist\s+(?:wieder\s+|endlich\s+)?gr[üu]n|das\s+kl[äa]rt\s+(?:es|alles|das)",
    # "hast du Serientipps fürs Wochenende?"
    r"(?:hast\s+du\s+)?(?:(?:ein|einen|ein\s+paar)\s+)?(?:serien|film|buch)-?tipps?(?:\s+f[üu]rs\s+wochenende)?",
    # "hast du das Spiel gestern gesehen?", "Strand oder Berge, was magst du lieber?"
    r"(?:hast\s+du\s+)?das\s+spiel\s+(?:gestern|am\s+wochenende)\s+gesehen"
    r"|[^\W\d_]+\s+oder\s+[^\W\d_]+,?\s+was\s+(?:magst|hast)\s+du\s+lieber",
)
