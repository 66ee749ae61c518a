"""Request shapes that do not need a skill, in every language the router reads (English,
Chinese, Japanese, Spanish, German, French):

- `is_chat`: the whole message is greetings, thanks and acknowledgements ("thanks, that
  worked!", "谢谢，搞定了！", "vale, entendido"). Small talk never routes.
- `edit_kind`: a small, local edit (rename, bump a version, fix a typo, delete an import,
  change a colour or a port) written as one short instruction. It routes only to a skill
  whose own description claims that kind of edit (`claims_edit`): a skill is a workflow,
  and "rename the docker_host variable" is one keystroke of one, whatever domain word
  it mentions.

Data and small functions only; `shape.request_shape` decides with them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from codebot.skills.route.index.words import STOP_WORDS as _ENGLISH
from codebot.skills.route.lang import STOP_WORDS, unaccented

# -- greetings, thanks, acknowledgements ------------------------------------------------

#: Phrases that carry no task, per language. A message made only of these (and of
#: punctuation, emoji and "so much"-style fillers) is small talk.
_CHAT_PHRASES: Mapping[str, tuple[str, ...]] = {
    "en": (
        r"hi|hello|hey|yo|hiya|howdy|greetings|good\s+(?:morning|afternoon|evening|night|day)",
        r"thanks(?:\s+a\s+(?:bunch|ton|million))?|many\s+thanks|thank\s+(?:you|u)|thx|ty|tysm",
        r"cheers|much\s+appreciated|appreciate\s+it|kudos",
        r"bye|goodbye|see\s+you(?:\s+later)?|later|good\s+job|great\s+job|nice\s+work|well\s+done",
        r"ok|okay|k|kk|alright|all\s+right|got\s+it|gotcha|understood|noted|roger|sure|yes|yep",
        r"yeah|no\s+problem|np|great|perfect|awesome|cool|nice|excellent|amazing|wonderful|lgtm",
        r"sounds\s+(?:good|great)|makes\s+sense|(?:that|it|this)\s+(?:worked|works(?:\s+now)?"
        r"|did\s+(?:it|the\s+trick)|fixed\s+it|helped|is\s+(?:working|fixed|perfect|great))",
        r"(?:it|that)'?s\s+working(?:\s+now)?|works\s+for\s+me|looks\s+good(?:\s+to\s+me)?",
        r"good\s+to\s+go|all\s+set|will\s+do|no\s+worries|never\s*mind",
        r"works\s+now|fixed\s+it|that'?s\s+(?:it|all|great|perfect|fine)|fine|done|all\s+good",
        r"so\s+much|a\s+lot|very\s+much|again|there|all|everyone|folks|man|mate|buddy",
        r"you'?re\s+(?:the\s+best|awesome|great|a\s+(?:lifesaver|legend|star))|lifesaver",
        r"you\s+(?:saved|made)\s+my\s+day|how'?s\s+it\s+going|what'?s\s+up|how\s+are\s+you",
        # compliments and wishes: "you rock, have a good one", "you too!"
        r"you\s+rock|you'?re\s+a\s+(?:genius|champ|hero|gem)|you\s+too|same\s+to\s+you",
        r"have\s+a\s+(?:good|great|nice)\s+(?:one|day|evening|night|weekend)|seriously|really",
        r"hope\s+you'?re\s+(?:doing\s+)?(?:well|good)|hope\s+all\s+is\s+well",
    ),
    "zh": (
        r"你好|您好|嗨|哈喽|早上好|上午好|下午好|晚上好|晚安|再见|拜拜",
        r"谢谢你?|谢谢您|多谢|谢了|感谢|非常感谢|太感谢了|辛苦了",
        r"好的|好吧|好嘞|好|行了?|可以了?|明白了?|清楚了|知道了|了解了?|收到了?|懂了|没问题|对|是的",
        r"嗯+|哦+|噢|问题(?:已经)?(?:解决|搞定)了?|没事了|辛苦|在吗|最近(?:怎么样|还好吗?)",
        r"搞定了?|成功了|解决了|能用了|可以用了|太棒了|真棒|棒|不错|完美|厉害",
        # compliments: "你真厉害", "太强了", "牛", "绝了"; "(it) runs now": "跑通了"
        r"你?(?:太|真|真的|好)(?:强|厉害|棒|牛|给力)了?|牛(?:逼|啊)?|绝了|给力|大神|跑通了|(?:运行|跑)起来了",
    ),
    "ja": (
        r"こんにちは|こんばんは|おはよ(?:う(?:ございます)?)?|おやすみ(?:なさい)?|さようなら|またね",
        r"ありがとう(?:ございます|ございました)?|どうも(?:ありがとう)?|感謝します|助かりました",
        r"了解(?:です|しました)?|わかりました|分かりました|承知しました|はい|オッケー|OK",
        r"うまくいきました|できました|動きました|直りました|完璧(?:です)?|すごい|いいね",
        r"お疲れ(?:様|さま)(?:です|でした)?|おつかれ(?:さま)?(?:です|でした)?",
        r"よろしく(?:お願いします|お願いいたします)?|また明日|またね|では、?また|じゃあね",
        r"なるほど|大丈夫(?:です)?|助かります|いい感じ(?:です)?|今日も|元気(?:です)?か",
        # casual forms and compliments: "動いた！ほんと助かった", "さすが", "神対応"
        r"ほんと(?:に)?|本当に|マジで|助かった|助かる|動いた|直った|できた|いけました|いけた",
        r"さすが(?:です)?|最高(?:です)?|神(?:対応)?(?:すぎる|です)?",
    ),
    "es": (
        r"hola|buenos\s+d[ií]as|buenas\s+tardes|buenas\s+noches|buenas|adi[oó]s|chao|hasta\s+luego",
        r"gracias|muchas\s+gracias|mil\s+gracias|te\s+lo\s+agradezco",
        r"vale|ok|de\s+acuerdo|entendido|perfecto|genial|estupendo|excelente|listo|claro|s[ií]",
        r"(?:ya\s+)?funcion[oó]|(?:ya\s+)?funciona|qu[eé]\s+bien|muy\s+bien|todo\s+bien",
        r"anotado|apuntado|buen\s+trabajo|nos\s+vemos(?:\s+ma[ñn]ana)?|hasta\s+ma[ñn]ana|ya\s+est[aá]",
        r"sin\s+problema|de\s+nada|me\s+(?:sirvi[oó]|funcion[oó])|(?:qu[eé]\s+)?crack",
        r"me\s+(?:has|ha)\s+salvado(?:\s+el\s+d[ií]a)?|eres\s+(?:un|una)\s+(?:crack|genio)",
        r"qu[eé]\s+tal|qu[eé]\s+pasa|c[oó]mo\s+(?:est[aá]s|va(?:\s+todo)?)",
        # compliments and wishes: "eres lo máximo", "igualmente", "buen finde"
        r"eres\s+(?:el|la)\s+mejor|eres\s+lo\s+m[aá]ximo|igualmente|buen\s+finde|de\s+verdad",
        r"que\s+tengas\s+(?:un\s+)?buen\s+d[ií]a|feliz\s+(?:d[ií]a|fin\s+de\s+semana)",
    ),
    "de": (
        r"hallo|hi|moin|servus|gr[üu]ß\s+gott|guten\s+(?:morgen|tag|abend)|tsch[üu]ss|bis\s+sp[äa]ter",
        r"danke(?:\s+sch[öo]n)?|dankesch[öo]n|vielen\s+dank|besten\s+dank|merci",
        r"ok|okay|alles\s+klar|klar|verstanden|super|perfekt|toll|prima|gut|sehr\s+gut|passt|ja",
        r"(?:hat|es)\s+(?:geklappt|funktioniert)|klappt|funktioniert(?:\s+jetzt)?|zusammen|leute",
        r"passt\s+(?:so|schon)|gut\s+so|(?:das\s+)?l[äa]uft(?:\s+jetzt)?|geht\s+(?:klar|jetzt)",
        r"alles\s+gut|erledigt|bis\s+morgen|sch[öo]nen\s+feierabend|gute\s+arbeit|danke?\s+dir",
        r"wie\s+geht(?:'s|\s+es(?:\s+dir)?)?|was\s+geht",
        # compliments and wishes: "du bist spitze", "schönen Tag noch", "gleichfalls"
        r"du\s+bist\s+(?:echt\s+)?(?:spitze|klasse|genial|super|der\s+beste|die\s+beste)",
        r"spitze|klasse|genial|einwandfrei|echt|wirklich|gleichfalls|dir\s+auch",
        r"sch[öo]nen\s+(?:tag|abend|sonntag|wochenende)(?:\s+noch)?",
    ),
    "fr": (
        r"bonjour|bonsoir|salut|coucou|au\s+revoir|[àa]\s+plus|bonne\s+(?:journ[ée]e|soir[ée]e)",
        r"merci(?:\s+(?:beaucoup|bien|mille\s+fois))?",
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
    ),
}
#: separators between phrases: spaces, punctuation of every script, emoji and symbols
_SEP = re.compile(
    r"(?:[\s,.;:!?~…'\"()\-–—、，。！？；：～〜・「」『』¡¿]|[\U0001F300-\U0001FAFF\u2600-\u27BF])*"
)
_CJK_CHAR = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]"
_CJK = re.compile(_CJK_CHAR)


def _alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of a pattern ("a|b(c|d)" -> ["a", "b(c|d)"])."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(pattern):
        if ch == "(" and (i == 0 or pattern[i - 1] != "\\"):
            depth += 1
        elif ch == ")" and pattern[i - 1] != "\\":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
    out.append(pattern[start:])
    return out


#: one compiled pattern per phrase: a message may split into phrases in several ways
#: ("了解" + "です" or "了解です"), which `is_chat` tries position by position
_PHRASE_RES = tuple(
    re.compile(alt, re.IGNORECASE)
    for group in _CHAT_PHRASES.values()
    for pattern in group
    for alt in _alternatives(pattern)
)
MAX_CHAT_CHARS = 200

# -- what a person does not read as part of the message ---------------------------------
# Other languages' function words (`lang.STOP_WORDS`; not English ones) and invisible
# characters carry no task, but they turn the language identifier's verdict and the
# counts below: "thanks, that worked! de la el los" or a zero-width space after "thanks"
# was no small talk, and ten of them made "rename x to y" too long for a small edit.

#: zero-width characters, direction marks, embeddings, overrides and isolates, the BOM
_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")
_FUNCTION_WORDS = frozenset().union(*STOP_WORDS.values()) - _ENGLISH
_WORD = re.compile(r"[^\W\d_]+")
#: Chinese particles: a message of thanks may end on one ("谢谢啦"), never a task
_PARTICLE = re.compile("[的了吧啊呢嘛哦呀啦]")
#: the most of a message read for small talk, padding included (bounds the work)
_MAX_PADDED = 20 * MAX_CHAT_CHARS


def _is_padding(word: str) -> bool:
    return unaccented(word.lower()) in _FUNCTION_WORDS


def _padding_end(text: str, pos: int) -> int | None:
    """The end of a function word of another language, or a particle, at `pos`."""
    m = _PARTICLE.match(text, pos) or _WORD.match(text, pos)
    return m.end() if m is not None and (m.re is _PARTICLE or _is_padding(m.group())) else None


def _skip(text: str, pos: int) -> int:
    """The position after the separators at `pos` (`pos` itself when there are none)."""
    m = _SEP.match(text, pos)
    return m.end() if m else pos


def _phrase_ends(text: str, pos: int) -> set[int]:
    """Where a phrase starting at `pos` can end: at a separator, a CJK character or the end."""
    ends = set()
    for r in _PHRASE_RES:
        m = r.match(text, pos)
        if m is None or m.end() == pos:
            continue
        e = m.end()
        if e == len(text) or _skip(text, e) > e or _CJK.match(text, e):
            ends.add(e)
    return ends


def is_chat(text: str) -> bool:
    """Is the whole message greetings, thanks and acknowledgements (in any language), with
    at least one of them, around other languages' function words and invisible characters?
    Linear in the message (at most `MAX_CHAT_CHARS` besides those): each position is tried
    once, having seen a phrase or not."""
    t = _INVISIBLE.sub("", text).strip()
    if not t or len(t) > _MAX_PADDED:
        return False
    padding = sum(len(w) for w in _WORD.findall(t) if _is_padding(w))
    if len(t) - padding > MAX_CHAT_CHARS:
        return False
    start = _skip(t, 0)
    todo, seen = [(start, False)], {(start, False)}
    while todo:
        pos, had = todo.pop()
        if pos == len(t) and had:
            return True
        steps = [(e, True) for e in _phrase_ends(t, pos)]
        pad = _padding_end(t, pos)
        if pad is not None and (pad == len(t) or _skip(t, pad) > pad or _CJK.match(t, pad)):
            steps.append((pad, had))
        for e, now in steps:
            q = (_skip(t, e), now)
            if q not in seen:
                seen.add(q)
                todo.append(q)
    return False


# -- small, local edits -------------------------------------------------------------------

#: Kinds of edit -> how a request asks for one, in each language. Each pattern is searched
#: in a short request (`MAX_EDIT_WORDS`) with one instruction (no "and then ...").
_EDIT_ASK: Mapping[str, str] = {
    "rename": (
        r"^\W*(?:please\s+|pls\s+|can\s+you\s+|could\s+you\s+)?renam(?:e|ing)\b|改名|重命名|更名"
        r"|リネーム|名前を変更|renombr|cambia(?:r)?\s+el\s+nombre|benenne\b.*\bum\b|umbenenn"
        r"|renomm"
    ),
    "bump": (
        r"^\W*(?:please\s+|pls\s+|can\s+you\s+)?bump\b|\b(?:bump|raise|increase|update|set)\s+the"
        r"\s+version\b|版本号?.{0,10}(?:升|改|更新)?(?:到|至|为|成)\s*v?\d|升(?:级)?(?:到|至)\s*v?\d|バージョンを?\s*v?\d[\d.]*\s*に(?:上げ|更新|変更)|バージョンを(?:上げ|更新)"
        r"|を\s*v?\d+\.\d+(?:\.\d+)*\s*に(?:上げ|更新|アップデート)"
        r"|sube\s+la\s+versi[oó]n|actualiza\s+la\s+versi[oó]n|erh[öo]he?\s+die\s+version"
        r"|version\s+(?:auf|erh[öo]hen)|passe\s+la\s+version|monte\s+la\s+version"
        r"|mets?\s+[àa]\s+jour\s+la\s+version"
    ),
    "typo": (
        r"\btypos?\b|\bmisspell|\bspelling\s+(?:mistake|error)|错别字|拼写错误|笔误|誤字|タイポ"
        r"|誤植|errata|error(?:es)?\s+(?:tipogr[aá]fico|de\s+ortograf[ií]a)|tippfehler"
        r"|rechtschreibfehler|faute\s+de\s+frappe|coquille|faute\s+d'orthographe"
        r"|corrige[rz]?\s+(?:la|une|les)\s+fautes?\b"
        r"|\bspel(?:led|t)\b.{0,40}\bwrong\b|拼成了|拼错了?|打错字|スペルミス|綴りが?間違|falsch\s+geschrieben"
        r"|vertippt|falta\s+de\s+ortograf[ií]a|mal\s+orthographi[ée]"
        # one quoted string put right as another: 「インストート」を「インストール」に直して
        r"|「[^」]{1,40}」を「[^」]{1,40}」に(?:直|修正|変|置き換)"
        r"|\breplace\s+[\"'“][^\"'”]{1,40}[\"'”]\s+with\s+[\"'“]"
        # or corrected to a quoted string: "corrígelo a 'gratuito'", "korrigiere es zu „…“"
        r"|\b(?:correct|corr[ií]g|korrigier)\w*\b.{0,40}?\b(?:to|a|en|por|par|in|zu|auf)\s+[\"'«“„]"
    ),
    "import": (
        r"\b(?:delete|remove|drop|clean\s+up)\b.{0,40}\bimports?\b|(?:删掉|删除|删了|去掉|移除).{0,40}import"
        r"|\bimport\b.{0,40}(?:删掉|删除|删了|去掉|移除)"
        r"|import.{0,10}を?削除|(?:elimina|quita|borra)r?\b.{0,40}\bimports?\b"
        r"|(?:entferne|l[öo]sche)n?\b.{0,40}\bimports?\b|supprime[rz]?\b.{0,40}\bimports?\b"
    ),
    "colour": (
        r"\b(?:change|make|set|switch)\b.{0,40}\bcolou?rs?\b|\bcolou?rs?\b.{0,30}\bto\s+#?\w+"
        r"|(?:改|换)(?:成|为)?.{0,10}颜色|颜色.{0,20}(?:改|换)|色を(?:変更|変え)|cambia\b.{0,30}\bcolor"
        r"|[äa]ndere?\b.{0,30}\bfarbe|farbe\b.{0,30}\b(?:auf|zu)\b|change\b.{0,30}\bcouleur"
    ),
    # one quoted text replaced by another: "change the 'Sign up' button to say 'Start now'",
    # "« Bienvenu » → « Bienvenue »"
    "text": (
        r"[\"'«“「][^\"'»”」\n]{1,60}[\"'»”」].{0,60}?(?:\bto(?:\s+(?:say|read))?|\bwith|\bby|\bpar"
        r"|\bpor|\bdurch|\bzu|\ben|→|->|=>|に|为|成)\s*[\"'«“「]"
    ),
    "port": (
        r"\b(?:change|set|switch|move)\b.{0,40}\bport\b|\bport\b.{0,30}\bfrom\s+\d+\s+to\s+\d+"
        r"|端口|ポート番号|(?<!レ)(?<!サ)ポート(?:を|の).{0,15}(?:変更|変え)|cambia\b.{0,30}\bpuerto|[äa]ndere?\b.{0,30}\bport\b"
        r"|change\b.{0,30}\bport\b"
    ),
}
_EDIT_RE = {k: re.compile(v, re.IGNORECASE) for k, v in _EDIT_ASK.items()}
#: A value changed from one number or version to another ("from 3.1 to 3.2", "de la 15 a
#: la 16", "von 30 auf 60", "从 2.1 升到 2.2", "8080 から 9090 に")...
_V = r"v?\d+(?:\.\d+)*(?:-[A-Za-z][\w.]*)?"  # an image tag may follow: 18-alpine
_JA_UNIT = r"秒|分|時間|日|ミリ秒|ms|s|%"
_FROM_TO = re.compile(
    rf"\bfrom\s+{_V}\s+to\s+{_V}|\bde\s+(?:la\s+|el\s+)?{_V}\s+(?:[aà]|vers)\s+(?:la\s+|el\s+)?{_V}"
    rf"|\bvon\s+{_V}\s+(?:auf|zu)\s+{_V}|从\s*{_V}\s*\S{{0,3}}?(?:到|至|为|成)\s*{_V}"
    rf"|(?<![\d.]){_V}\s*(?:{_JA_UNIT})?\s*から\s*{_V}\s*(?P<ja_unit>{_JA_UNIT})?\s*に",
    re.IGNORECASE,
)
#: ...in a file the request names: one value in one file is an edit, whatever it is called
#: ("update React in package.json from 18.2.0 to 18.3.1"); without a file it may be a
#: migration ("move the cluster from 1.27 to 1.29"), which this rule leaves to the skills...
_FILE = re.compile(
    # ASCII around the name: Chinese and Japanese write it against their own characters
    # ("settings.pyのDEBUG", "把config.yaml里"), which `\w` would count as part of it
    r"(?<![A-Za-z0-9_/.-])[A-Za-z0-9_./-]*\.(?:json|ya?ml|toml|lock|txt|cfg|conf|ini|env|xml"
    r"|gradle|properties|py|js|mjs|ts|tsx|jsx|go|rs|rb|java|kt|swift|php|cs|cpp|c|h|tf|css|scss"
    r"|html|sql|sh)(?![A-Za-z0-9_-])"
    r"|(?<![A-Za-z0-9_])(?:Dockerfile|Makefile)(?![A-Za-z0-9_])"
)
#: ...or with a unit after the new value (a timeout, a size, a share: "von 5 auf 15
#: Sekunden", "de 60 à 300 secondes"): a setting, not a version to migrate to...
_UNIT = re.compile(
    r"\s*(?:ms|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|[kmgt]i?b|%|秒|分钟?|小时|天"
    r"|segundos?|minutos?|horas?|d[ií]as?|sekunden|minuten|stunden|tagen?|secondes?|heures?"
    r"|jours?)(?![^\W\d_])",
    re.IGNORECASE,
)
#: ...unless it states a goal rather than a setting ("cut the build from 20 to 5 minutes",
#: "reduce p99 from 800 to 200 ms"): that is a job for a skill
_GOAL = re.compile(
    r"\b(?:reduc|cut|lower|bring\s+down|speed\s+up|improv|optimi[sz]|decreas|shrink|shorten"
    r"|halve|baj[ae]|mejor|acort|reduzier|senk|verbesser|optimier|verk[üu]rz|r[ée]dui|baiss"
    r"|am[ée]lior|optimis|raccourc)|降低|减少|优化|缩短|提升|削減|短縮|減ら|改善|最適化",
    re.IGNORECASE,
)
#: ...and a leftover line of code deleted in a named file: "delete the commented-out lines
#: in main.tf", "lösch das console.log in app.js" (an import is `_EDIT_ASK["import"]`)
_DELETE = re.compile(
    r"\b(?:delete|remove|drop|strip)\b|删掉|删除|删了|去掉|移除|削除|消して|消す|取り除"
    r"|\b(?:elimina|quita|borra)r?\b|\b(?:l[öo]sch|entfern)\w*|\b(?:supprime|enl[eè]ve|retire)[rz]?\b",
    re.IGNORECASE,
)
_LEFTOVER = re.compile(
    r"\b(?:console\.log|print(?:ln|f)?|debug\w*|commented[- ]out|dead\s+code|unused|todo"
    r"|lines?|auskommentiert\w*|zeilen?|ungenutzt\w*|l[ií]neas?|comentad\w*|lignes?"
    r"|comment[ée]\w*|inutilis[ée]\w*)\b|注释|没用|无用|调试|打印|コメントアウト|未使用|使ってない|デバッグ",
    re.IGNORECASE,
)
#: ...and one literal value set in a named file, or as KEY=value ("set DEBUG to False in
#: settings.py", "remplace REDIS_HOST=localhost par REDIS_HOST=cache", "settings.py の
#: DEBUG を False にして"): what is set is a literal, not a tool or a version to move to
_LITERAL = (
    r"(?:true|false|null|none|nil|on|off|\d[\d.]*\w{0,3}|#[0-9a-f]{3,8}\b"
    r"|[\"'«“「][^\"'»”」]{1,40}[\"'»”」]|[\w.-]+=\S+)"
)
_SET_TO = re.compile(
    rf"\b(?:set|change|switch|turn|flip|make)\b.{{0,40}}?\bto\s+{_LITERAL}"
    rf"|\breplace\b.{{0,40}}?\bwith\s+{_LITERAL}"
    rf"|\b(?:mets?|passe|change|remplace)\b.{{0,40}}?(?:\b[àa]|\ben|\bpar)\s+{_LITERAL}"
    rf"|\b(?:pon|cambia|pasa|reemplaza|sustituye)\b.{{0,40}}?\b(?:a|en|por)\s+{_LITERAL}"
    rf"|\b(?:setz\w*|[äa]nder\w*|stell\w*|ersetz\w*)\b.{{0,40}}?\b(?:auf|durch|zu)\s+{_LITERAL}"
    rf"|(?:改成|改为|换成|设为|设置为|设成|替换为|替换成)\s*{_LITERAL}"
    rf"|{_LITERAL}\s*に(?:して|しといて|しておいて|変え|変更|設定|置き換)",
    re.IGNORECASE,
)
#: ...and a punctuation mark added or removed in a named file or line ("add the missing
#: semicolon on line 42", "Komma nach dem letzten Eintrag in settings.ts")...
_PUNCT = re.compile(
    r"\b(?:commas?|semicolons?|semi-colons?|komma|semikolon|comas?|punto\s+y\s+coma|virgules?"
    r"|point-virgule)\b|逗号|分号|カンマ|セミコロン",
    re.IGNORECASE,
)
_LINE = re.compile(r"\b(?:line|zeile|l[ií]nea|ligne)\s+\d+|第\s*\d+\s*行|\d+\s*行目", re.IGNORECASE)
#: ...and a dependency or image moved to one version in a named file ("Sube lodash a la
#: 4.17.21 en el package.json", "update axios to 1.7.4 in package.json")
_TO_VERSION = re.compile(
    r"\b(?:sube|actualiza|bump|upgrade|update|raise|erh[öo]h\w*|aktualisier\w*|heb\w*|passe"
    r"|monte|mets?\s+[àa]\s+jour)\b.{0,40}?\b(?:to|a|auf|[àa]|vers|en)\s+(?:la\s+)?"
    r"v?\d+\.\d+[\w.-]*|(?:升|更新).{0,10}?(?:到|至|成|为)\s*v?\d+\.\d+",
    re.IGNORECASE,
)
_ASSIGNMENT = re.compile(r"[\w.-]+=\S+|#[0-9a-f]{3,8}\b", re.IGNORECASE)
#: a longer request, or one that goes on to another job, is more than a small edit
MAX_EDIT_WORDS = 16
MAX_EDIT_CJK_CHARS = 40
#: and a longer one in characters (a 16-word instruction is far shorter): bounds the work
#: of the patterns on one long "word" ("a.a.a.…", "x=x=…"), which is quadratic in it
MAX_EDIT_CHARS = 400
_MORE = re.compile(
    r"\b(?:and\s+then|and\s+also|then\s+(?:set|add|write|build|create|deploy)|as\s+well\s+as"
    r"|after\s+that)\b|然后|并且|而且|その後|それから|y\s+luego|und\s+dann|puis|et\s+ensuite",
    re.IGNORECASE,
)

#: What a skill's description says when it does claim such edits
_EDIT_CLAIM: Mapping[str, re.Pattern[str]] = {
    "rename": re.compile(r"\brenam(?:e|es|ing)\b", re.IGNORECASE),
    "bump": re.compile(r"\b(?:version\s+bumps?|bump(?:s|ing)?\s+(?:the\s+)?versions?)\b", re.I),
    "typo": re.compile(r"\b(?:typos?|spelling|proofread\w*)\b", re.IGNORECASE),
    "import": re.compile(r"\b(?:unused\s+imports?|imports?\s+(?:sort|clean)\w*)\b", re.I),
    "colour": re.compile(r"\b(?:recolou?r\w*|colou?r\s+(?:change|swap)s?)\b", re.IGNORECASE),
    "port": re.compile(r"\b(?:port\s+(?:number|mapping|change)s?)\b", re.IGNORECASE),
    "text": re.compile(r"\b(?:copy\s+edit\w*|text\s+changes?|microcopy)\b", re.I),
    "punctuation": re.compile(r"\b(?:syntax\s+errors?|lint(?:ing)?\s+fix\w*)\b", re.I),
    "delete": re.compile(r"\b(?:dead\s+code|commented[- ]out\s+code|unused\s+code)\b", re.I),
    "value": re.compile(r"\b(?:config(?:uration)?\s+values?|settings?\s+changes?)\b", re.I),
}


def _too_long(t: str) -> bool:
    """Longer than `MAX_EDIT_CHARS`, other languages' function words left out (as words
    are counted), or than 20 times that with them."""
    if len(t) > 20 * MAX_EDIT_CHARS:
        return True
    return len(t) - sum(len(w) for w in _WORD.findall(t) if _is_padding(w)) > MAX_EDIT_CHARS


def edit_kind(text: str) -> str | None:
    """The kind of small, local edit a short one-instruction request asks for, or None."""
    t = _INVISIBLE.sub("", text).strip()
    cjk = len(_CJK.findall(t))
    words = sum(1 for w in t.split() if not _is_padding(w.strip(".,;:!?¡¿()\"'")))
    if words > MAX_EDIT_WORDS or cjk > MAX_EDIT_CJK_CHARS or "\n" in t or _too_long(t):
        return None
    if _MORE.search(t):
        return None
    for kind, pattern in _EDIT_RE.items():
        if pattern.search(t):
            return kind
    m = _FROM_TO.search(t)
    if m is not None and (
        _FILE.search(t) or ((m.group("ja_unit") or _UNIT.match(t, m.end())) and not _GOAL.search(t))
    ):
        return "bump"
    named_file = _FILE.search(t) is not None
    if named_file and _TO_VERSION.search(t):
        return "bump"
    if named_file and _DELETE.search(t) and _LEFTOVER.search(t):
        return "delete"
    if (named_file or _LINE.search(t)) and _PUNCT.search(t):
        return "punctuation"
    m = _SET_TO.search(t)
    if m is not None and (named_file or _ASSIGNMENT.search(m.group())):
        return "value"
    return None


def claims_edit(kind: str, description: str) -> bool:
    """Does a skill's description claim this kind of small edit?"""
    claim = _EDIT_CLAIM.get(kind)
    return claim is not None and claim.search(description or "") is not None


# -- questions about code, beside shape's English ones -------------------------------------

#: "what does get_config() return?", in every language: a short question naming a function
_CALL = re.compile(r"\b[A-Za-z_][\w.]*\(\)")
_RETURNS = re.compile(
    r"\breturns?\b|\breturn\s+value|返回|返り値|戻り値|返す|返って|\bdevuelve|\bretorna|\brenvoie"
    r"|\bretourne|\bgibt\b.{0,60}\bzur[üu]ck|\bliefert|\br[üu]ckgabe",
    re.IGNORECASE,
)


def asks_what_returns(text: str) -> bool:
    """Is this a short question about what a named function returns? It is answered by
    reading the code, not routed: a skill is a workflow."""
    t = _INVISIBLE.sub("", text).strip()
    if _too_long(t) or len(t.split()) > MAX_EDIT_WORDS:
        return False
    if len(_CJK.findall(t)) > MAX_EDIT_CJK_CHARS:
        return False
    return (
        ("?" in t or "？" in t) and _CALL.search(t) is not None and _RETURNS.search(t) is not None
    )


#: "what does this function do?", in the other languages (English is `shape._CONCEPT`)
CODE_QUESTION = re.compile(
    r"^\W*(?:was\s+(?:macht|bedeutet|tut|ist)|wie\s+funktioniert|warum\b|wieso\b"
    r"|qu[eé]\s+(?:hace|significa|es)|c[oó]mo\s+funciona|por\s*qu[eé]\b"
    r"|que\s+fait|qu'est-ce\s+que|comment\s+fonctionne|pourquoi\b)"
    r"|(?:是什么|什么意思|做什么|干什么|干嘛|为什么|怎么回事)(?:用)?的?[？?]?\s*$"
    r"|(?:とは|って何|は何|何をして|なぜ|どういう意味)",
    re.IGNORECASE,
)
