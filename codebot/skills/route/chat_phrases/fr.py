"""Small talk in French: the phrases of `chat_phrases`."""

from __future__ import annotations

PHRASES: tuple[str, ...] = (
    r"bonjour|bonsoir|salut|coucou|au\s+revoir|[àa]\s+plus|bonne\s+(?:journ[ée]e|soir[ée]e)",
    # thanks made stronger: "merci infiniment", "merci énormément"
    r"merci(?:\s+(?:beaucoup|bien|mille\s+fois|infiniment|[ée]norm[ée]ment))?",
    r"(?:c'est\s+)?exactement\s+ce\s+(?:qu'il\s+me\s+fallait|dont\s+j'avais\s+besoin)",
    r"d'accord|ok|compris|parfait|g[ée]nial|super|top|nickel|tr[eè]s\s+bien|oui|entendu",
    r"[çc]a\s+(?:marche|fonctionne|roule)|c'est\s+(?:bon|clair|parfait)|impeccable",
    r"(?:c'est\s+)?not[ée]|bien\s+re[çc]u|re[çc]u|[àa]\s+demain|bon\s+travail|je\s+vois",
    r"pas\s+de\s+(?:souci|probl[èe]me)|merci\s+encore|encore\s+merci",
    r"quoi\s+de\s+neuf|(?:comment\s+)?[çc]a\s+va",
    # compliments and wishes: "t'es au top", "bonne journée à toi", "pareillement"
    r"(?:t'es|tu\s+es)\s+(?:au\s+top|le\s+meilleur|la\s+meilleure|g[ée]nial|un\s+chef)",
    r"(?:et\s+)?[àa]\s+(?:toi|vous)(?:\s+aussi)?|pareillement|toi\s+aussi|vous\s+aussi",
    r"bon(?:ne)?\s+(?:fin\s+de\s+journ[ée]e|semaine|week-?end|nuit|courage)",
    r"(?:coucou|salut|bonjour|bonsoir)\s+(?:toi|vous|[àa]\s+tous)|bien\s+dormi",
    r"d[ée]sol[ée]e?|pardon|excuse[sz]?-moi|autant\s+pour\s+moi|mdr|haha(?:ha)*",
    r"(?:d[ée]sol[ée]e?\s+)?pour\s+le\s+retard|je\s+(?:file|me\s+sauve|dois\s+y\s+aller)",
    # why it was late: "j'étais en réunion"
    r"j'[ée]tais\s+(?:en\s+r[ée]union|occup[ée]e?|absente?)",
    r"(?:[çc]a\s+a\s+(?:march[ée]|fonctionn[ée])\s+)?du\s+premier\s+coup|[çc]a\s+me\s+va",
    r"(?:t'es|tu\s+es)\s+trop\s+(?:forte|fort|bonne|bon)|franchement",
    # "you saved my day", "today", see you on a day, rest well: "tu m'as sauvé la
    # journée", "ça va aujourd'hui ?", "à lundi", "repose-toi bien"
    r"tu\s+m'as\s+sauv[ée]e?\s+(?:la\s+(?:journ[ée]e|vie|mise|semaine)|le\s+(?:week-?end|vendredi))"
    r"|tu\s+me\s+sauves(?:\s+la\s+vie)?|aujourd'hui",
    r"[àa]\s+(?:lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|bient[ôo]t"
    r"|tout\s+[àa]\s+l'heure|la\s+semaine\s+prochaine)|repose[sz]?[- ](?:toi|vous)(?:\s+bien)?"
    r"|dors\s+bien|prends\s+soin\s+de\s+toi",
    # understanding, a day, coffee first: "je comprends mieux", "c'était donc ça",
    # "comment s'est passée ta journée ?", "vivement vendredi", "un café d'abord"
    r"(?:ah\s+)?je\s+comprends(?:\s+mieux)?|c'(?:est|[ée]tait)\s+donc\s+[çc]a|(?:enfin|vivement)\s+vendredi",
    r"comment\s+(?:s'est\s+pass[ée]e|va)\s+ta\s+journ[ée]e|un\s+caf[ée]\s+d'abord",
    r"pf+|ouf|quelle\s+(?:longue\s+)?semaine|longue\s+semaine",
    # off to lunch: "bon, je file déjeuner, à tout à l'heure"
    r"bon|je\s+(?:file|vais)\s+(?:d[ée]jeuner|manger)|pause\s+(?:d[ée]jeuner|caf[ée])|je\s+reviens",
    # sorry for an earlier message: "désolé pour le message de tout à l'heure, j'étais énervé"
    r"(?:d[ée]sol[ée]e?\s+)?pour\s+(?:le|mon)\s+message\s+(?:de\s+tout\s+[àa]\s+l'heure|d'avant|pr[ée]c[ée]dent)"
    r"|j'[ée]tais\s+(?:[ée]nerv[ée]e?|stress[ée]e?|fatigu[ée]e?|agac[ée]e?)",
    # "c'est parfait comme ça", "je vois ce que tu veux dire", "quelle journée", "à demain
    # alors", "désolé d'avoir mis du temps à répondre, j'ai passé la journée en réunion",
    # "je compte sur toi"
    r"c'est\s+(?:parfait|bien|tr[eè]s\s+bien|top)\s+comme\s+[çc]a|quelle\s+(?:longue\s+)?journ[ée]e",
    r"(?:je\s+)?(?:vois|comprends)\s+ce\s+que\s+(?:tu\s+veux|vous\s+voulez)\s+dire",
    r"(?:[àa]\s+demain|[àa]\s+plus)\s+alors|alors\s+[àa]\s+demain",
    r"(?:d[ée]sol[ée]e?\s+)?d'avoir\s+mis\s+(?:du|autant\s+de|tant\s+de)\s+temps\s+[àa]\s+r[ée]pondre",
    r"j'ai\s+pass[ée]\s+(?:la|toute\s+la)\s+journ[ée]e\s+en\s+r[ée]unions?"
    r"|je\s+compte\s+sur\s+(?:toi|vous)|encore",
    # "je prends le relais", "enfin ! ce bug m'a pris tout l'après-midi", "il fait beau
    # aujourd'hui", "tu me sauves la mise pour la démo de demain", "comment ça se passe ?",
    # "grâce à toi je vais pouvoir partir à l'heure"
    r"je\s+prends\s+le\s+relais|enfin|ce\s+bug\s+m'a\s+pris\s+tout(?:e)?\s+l'apr[eè]s-midi",
    r"il\s+fait\s+beau|tu\s+me\s+sauves\s+la\s+mise(?:\s+pour\s+la\s+d[ée]mo\s+de\s+demain)?",
    r"comment\s+[çc]a\s+se\s+passe|gr[âa]ce\s+[àa]\s+toi|je\s+vais\s+pouvoir\s+partir\s+[àa]\s+l'heure",
    # "le blues du lundi, mon cerveau n'est pas encore allumé", "je vais manger", "j'ai collé
    # la mauvaise chose, ignore", "il fait trop chaud, le ventilo est mort"
    r"(?:le\s+)?blues\s+du\s+lundi|mon\s+cerveau\s+n'est\s+pas\s+encore\s+(?:allum[ée]|r[ée]veill[ée])"
    r"|je\s+vais\s+(?:manger|d[îi]ner)",
    r"j'ai\s+coll[ée]\s+(?:la\s+)?mauvaise\s+chose|ignore(?:[- ]le)?",
    r"il\s+fait\s+(?:trop\s+|super\s+)?(?:chaud|froid)|le\s+ventilo\s+est\s+(?:cass[ée]|mort)|oups",
    # "laisse tomber, c'est pas grave", "oublie, t'inquiète", "je suis crevé, plus envie
    # de coder"
    r"laisse\s+tomber|(?:ce\s+n'est|c'est)\s+pas\s+grave|pas\s+grave|oublie(?:[- ][çc]a)?"
    r"|(?:ne\s+)?t'inqui[èe]te(?:\s+pas)?|peu\s+importe|tant\s+pis",
    r"(?:je\s+suis\s+)?(?:compl[èe]tement\s+|trop\s+|super\s+)?(?:crev[ée]e?|[ée]puis[ée]e?|naze)"
    r"|(?:plus|pas)\s+envie\s+de\s+(?:coder|bosser|travailler)",
    # the nineteenth set's: "merci beaucoup, c'est nickel !", "ah zut laisse tomber, c'était
    # pas le bon fichier"
    r"(?:c'est\s+)?nickel|(?:ah\s+)?zut(?:\s+alors)?|c'[ée]tait\s+pas\s+le\s+bon\s+(?:fichier|onglet|lien|truc)",
    # the twentieth set's: "bon il pleut encore, j'ai la flemme"
    r"(?:il\s+)?pleut(?:\s+encore)?|(?:j'ai\s+)?la\s+flemme",
    # "laisse tomber, j'ai changé d'avis", "c'est pas mon jour"
    r"(?:j'ai\s+)?chang[ée]\s+d'avis|(?:(?:ce\s+n'est|c'est)\s+)?pas\s+mon\s+jour",
    # "annule ma dernière demande", "oublie ce que je t'ai demandé"
    r"(?:annule|oublie|ignore)\s+(?:ma\s+(?:derni[èe]re\s+|pr[ée]c[ée]dente\s+)?(?:demande|question"
    r"|message)(?:\s+pr[ée]c[ée]dente)?|ce\s+que\s+je\s+(?:t'ai|viens\s+de\s+te)\s+(?:demand[ée]|dit|dire))",
    # "merci pour ta patience", "il pleut des cordes"
    r"(?:merci\s+)?pour\s+(?:ta|votre)\s+patience|(?:il\s+)?pleut\s+des\s+cordes",
    # "super clair, merci", "tous les tests passent enfin", "comment se passe ta semaine ?",
    # "ici je survis aux réunions"
    r"(?:c'(?:est|[ée]tait)\s+)?(?:tr[èe]s|super|vraiment|hyper)\s+clair|l'explication\s+(?:[ée]tait|est)\s+"
    r"(?:tr[èe]s\s+|vraiment\s+|super\s+)?claire|bien\s+expliqu[ée]|bref|longue\s+journ[ée]e|(?:tous\s+)?les"
    r"\s+tests\s+passent(?:\s+enfin)?|tout\s+est\s+(?:au\s+)?vert|comment\s+se\s+passe\s+(?:ton|ta|votre)\s+"
    r"(?:journ[ée]e|semaine|lundi|mardi|mercredi|jeudi|vendredi)|ici\s+je\s+survis\s+aux\s+r[ée]unions",
    # "il pleut encore sur Nantes", "j'espère que ta semaine se passe mieux que la mienne",
    # "ça s'est réglé tout seul"
    r"(?:il\s+)?pleut(?:\s+encore)?\s+(?:sur|[àa])\s+[^\W\d_]+|j'esp[èe]re\s+que\s+ta\s+(?:journ[ée]e|semaine)\s+se"
    r"\s+passe\s+mieux\s+que\s+la\s+mienne|(?:[çc]a\s+s'est|c'est)\s+r[ée]gl[ée](?:\s+tout\s+seul)?",
    # "ah laisse tomber, c'était pas important", "je me déconnecte", "il fait trop chaud à Lyon"
    r"ah|(?:c'[ée]tait|ce\s+n'[ée]tait|c'est|ce\s+n'est)\s+pas\s+(?:important|grave)|je\s+me\s+d[ée]connecte"
    r"|il\s+fait\s+(?:trop\s+|super\s+)?(?:chaud|froid)\s+[àa]\s+[^\W\d_]+",
    # "bon je vais me faire un café, à toute"
    r"(?:je\s+)?vais\s+me\s+(?:faire|prendre|chercher)\s+un\s+(?:caf[ée]|th[ée])|[àa]\s+toute",
    # "tu as illuminé mon après-midi avec cette réponse", "top explication"
    r"tu\s+as\s+illumin[ée]\s+(?:ma\s+journ[ée]e|mon\s+apr[èe]s-midi|ma\s+soir[ée]e)(?:\s+avec\s+cette\s+r[ée]ponse)?"
    r"|top\s+explication|exactement\s+ce\s+que\s+je\s+voulais",
    # the weather asked: "tu sais quel temps il fera demain à Lyon ?", "il va pleuvoir demain ?"
    r"(?:tu\s+sais\s+)?quel\s+temps\s+(?:il\s+)?(?:(?:fait|fera)(?:-t)?-il|fait|fera|va(?:-t-il|\s+t'il)?\s+faire)(?:\s+(?:aujourd'hui"
    r"|demain|ce\s+week-end))?(?:\s+[àa]\s+[^\W\d_]+)?(?:\s+(?:aujourd'hui|demain))?"
    r"|(?:il\s+)?va\s+pleuvoir(?:\s+(?:aujourd'hui|demain))?(?:\s+[àa]\s+[^\W\d_]+)?",
    # "le build est de nouveau vert", "ça clarifie tout"
    r"(?:le|la)\s+(?:build|pipeline|ci)\s+est\s+(?:de\s+nouveau\s+|enfin\s+)?(?:vert|au\s+vert)"
    r"|[çc]a\s+clarifie\s+(?:tout|les\s+choses)",
    # "tu aurais des séries à me conseiller pour ce week-end ?"
    r"(?:tu\s+(?:aurais|as|connais)\s+)?(?:des|une|un)\s+(?:s[ée]ries?|films?|livres?)\s+[àa]\s+me\s+(?:conseiller"
    r"|recommander)(?:\s+pour\s+ce\s+week-end)?",
    # "Tu as vu le match de rugby ce week-end ?", "tu préfères la mer ou la montagne ?"
    r"(?:tu\s+as|t'as)\s+vu\s+le\s+match(?:\s+de\s+[^\W\d_]+)?(?:\s+(?:ce\s+week-end|hier(?:\s+soir)?))?"
    r"|tu\s+pr[ée]f[èe]res\s+(?:la\s+|le\s+|les\s+)?[^\W\d_]+\s+ou\s+(?:la\s+|le\s+|les\s+)?[^\W\d_]+",
)
