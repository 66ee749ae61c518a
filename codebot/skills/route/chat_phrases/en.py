"""Small talk in English: the phrases of `chat_phrases`."""

from __future__ import annotations

_EN_DAYS = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|the\s+weekend"
PHRASES: tuple[str, ...] = (
    r"hi|hello|hey|yo|hiya|howdy|greetings|good\s+(?:morning|afternoon|evening|night|day)",
    r"thanks(?:\s+a\s+(?:bunch|ton|million))?|many\s+thanks|thank\s+(?:you|u)|thx|ty|tysm",
    r"(?:infinitely|eternally|forever|so|very)\s+grateful|thanks\s+infinitely",
    # "exactly what I needed", in every language below too
    r"(?:that'?s\s+|this\s+is\s+)?exactly\s+what\s+i\s+need(?:ed)?",
    r"cheers|much\s+appreciated|appreciate\s+it|kudos",
    r"bye|goodbye|see\s+you(?:\s+later)?|later|good\s+job|great\s+job|nice\s+work|well\s+done",
    r"ok|okay|k|kk|alright|all\s+right|got\s+it|gotcha|understood|noted|roger|sure|yes|yep",
    r"yeah|no\s+problem|np|great|perfect|awesome|cool|sweet|nice|excellent|amazing|wonderful|lgtm",
    r"sounds\s+(?:good|great)|makes\s+sense|(?:that|it|this)\s+(?:worked|works(?:\s+now)?"
    r"|did\s+(?:it|the\s+trick)|fixed\s+it|helped|is\s+(?:working|fixed|perfect|great))",
    r"(?:it|that)'?s\s+working(?:\s+now)?|works\s+for\s+me|looks\s+good(?:\s+to\s+me)?",
    r"good\s+to\s+go|all\s+set|will\s+do|no\s+worries|never\s*mind",
    r"works\s+now|fixed\s+it|that'?s\s+(?:it|all|great|perfect|fine)|fine|done|all\s+good",
    r"so\s+much|a\s+lot|very\s+much|again|there|all|everyone|folks|man|mate|buddy|today",
    r"you'?re\s+(?:the\s+best|awesome|great|a\s+(?:lifesaver|legend|star))|lifesaver",
    r"you\s+(?:saved|made)\s+my\s+day|how'?s\s+it\s+going|what'?s\s+up|how\s+are\s+you",
    # compliments and wishes: "you rock, have a good one", "you too!"
    r"you\s+rock|you'?re\s+a\s+(?:genius|champ|hero|gem)|you\s+too|same\s+to\s+you",
    r"have\s+a\s+(?:good|great|nice)\s+(?:one|day|evening|night|weekend)|seriously|really",
    r"hope\s+you'?re\s+(?:doing\s+)?(?:well|good)|hope\s+all\s+is\s+well",
    # apologies and laughter: "sorry, my bad", "lol"
    r"sorry|my\s+bad|my\s+mistake|apologies|lol|haha(?:ha)*|fr|ur\s+a\s+(?:legend|star|genius)",
    # it worked the first time, it will do: "worked first try", "that works for me"
    r"(?:(?:it|that)\s+)?(?:worked\s+)?(?:on\s+the\s+)?first\s+(?:time|try)",
    r"that\s+(?:works|will\s+do)\s+for\s+me",
    # late, and leaving: "sorry for the late reply, gotta run"
    r"(?:sorry\s+)?for\s+the\s+(?:delay|late\s+(?:reply|answer))|i'?m\s+off",
    # why it was late: "I was in a meeting"
    r"i\s+was\s+(?:in\s+a\s+meeting|busy|away|afk|out)",
    r"(?:i\s+)?(?:gotta|have\s+to|need\s+to)\s+(?:run|go)",
    # "you saved me", see you on a day, rest well: "see you monday, get some rest"
    r"you\s+saved\s+(?:me|my\s+(?:life|weekend|week|friday|evening))|lifesaver",
    r"(?:see\s+(?:you|ya)|talk(?:\s+to\s+you)?)\s+(?:on\s+)?(?:soon|tomorrow|tonight"
    rf"|next\s+week|{_EN_DAYS})|ttyl|rest\s+well|get\s+some\s+rest|take\s+care|sleep\s+well",
    # understanding, and what comes before the work: "I see, that explains it", "coffee
    # first, then we'll get going", "finally friday"
    r"(?:ah\s+|oh\s+)?i\s+see|that\s+explains\s+it|(?:so\s+)?that'?s\s+what\s+it\s+was",
    r"(?:a\s+)?coffee\s+first|(?:then\s+)?(?:we'?ll|let'?s|i'?ll)\s+get\s+(?:going|started)",
    rf"(?:it'?s\s+)?(?:finally\s+)?(?:{_EN_DAYS})(?:\s+finally)?|how'?s\s+your\s+day(?:\s+going)?",
    # a sigh about the week: "phew, what a long week"
    r"ugh|phew|whew|(?:what\s+a|such\s+a)\s+(?:long\s+)?(?:week|day)|long\s+(?:week|day)",
    # off to lunch: "I'm off to lunch, back in an hour"
    r"(?:i'?m\s+)?(?:off\s+to|going\s+to|heading\s+(?:out\s+)?(?:to|for))\s+(?:lunch|grab\s+lunch)"
    r"|lunch\s+(?:break|time)|back\s+in\s+(?:a\s+bit|an\s+hour|\d+)",
    # sorry for an earlier message, and why: "sorry about my last message, I was frustrated"
    r"(?:sorry\s+)?(?:about|for)\s+my\s+(?:last|earlier|previous)\s+message"
    r"|i\s+was\s+(?:frustrated|annoyed|stressed|tired|in\s+a\s+bad\s+mood)",
    # fine as it is, what you mean, then, a slow reply and its meetings, counting on you:
    # "it's perfect as it is", "I see what you mean", "see you tomorrow then", "sorry for
    # taking so long to reply, I was in meetings all day", "counting on you again today"
    r"it'?s\s+(?:perfect|great|fine|good)(?:\s+(?:as\s+it\s+is|like\s+(?:that|this)))?",
    r"(?:i\s+)?(?:see|get|know)\s+what\s+you\s+mean|see\s+you\s+(?:tomorrow|soon|later)\s+then",
    r"(?:sorry\s+)?for\s+taking\s+(?:so\s+)?long(?:\s+to\s+(?:reply|answer|respond|get\s+back))?",
    r"(?:i\s+was|i'?ve\s+been)\s+in\s+meetings(?:\s+all\s+day)?|the\s+day\s+got\s+away\s+from\s+me",
    r"(?:i'?m\s+)?counting\s+on\s+you(?:\s+again)?",
    # taking over, a bug that took the afternoon, the weather, a demo saved, how it all
    # goes, leaving on time: "I'll take it from here", "this bug ate my whole
    # afternoon", "lovely weather today", "you saved me for tomorrow's demo", "how's
    # everything going?", "thanks to you I can leave on time today"
    r"(?:i'?ll|i\s+can)\s+take\s+it\s+from\s+here|finally|this\s+bug\s+(?:ate|took)\s+(?:my|the)"
    r"\s+(?:whole\s+)?(?:afternoon|morning|day|evening)",
    r"(?:lovely|nice|beautiful|great)\s+weather(?:\s+today)?|you\s+saved\s+me\s+for\s+"
    r"(?:tomorrow'?s|the)\s+(?:demo|meeting|presentation)|how'?s\s+everything(?:\s+going)?",
    r"thanks\s+to\s+you|i\s+can\s+leave\s+on\s+time(?:\s+today)?",
    # the seventeenth set's kinds: a slow Monday, off to eat, a wrong paste to ignore, the
    # heat: "monday blues, brain hasn't booted yet", "off to grab some ramen", "pasted the
    # wrong thing, ignore it", "it's so hot here, the fan is broken"
    r"monday\s+blues|(?:my\s+)?brain\s+(?:hasn'?t|isn'?t|is\s+not)\s+(?:booted|awake|on)(?:\s+yet)?"
    r"|(?:i'?m\s+)?(?:off|going)\s+to\s+(?:grab|get|eat)\s+(?:some\s+)?(?:food|dinner|lunch|pizza|ramen|sushi|tacos)",
    r"(?:i\s+)?pasted\s+the\s+wrong\s+(?:thing|text|stuff)|ignore\s+(?:it|that)"
    r"|it'?s\s+(?:so\s+|really\s+|way\s+too\s+)?(?:hot|cold|freezing)(?:\s+(?:here|today|outside))?"
    r"|the\s+(?:fan|ac|air\s+con)\s+(?:is\s+)?(?:broken|dead)|brb|be\s+right\s+back|(?:wh)?o+ps",
    r"how\s+was\s+(?:the|your)\s+weekend|you\s+saved\s+my\s+life|you'?re\s+a\s+(?:legend|star|genius)",
    # the eighteenth set's kinds: letting a request go, and being worn out: "forget it, no
    # big deal", "don't worry about it", "ugh, completely fried, no more coding today"
    r"forget\s+(?:it|about\s+it|that)|no\s+big\s+deal|don'?t\s+worry(?:\s+about\s+it)?"
    r"|scratch\s+that|it'?s\s+(?:fine|ok(?:ay)?|nothing)|not\s+important",
    r"(?:i'?m\s+)?(?:so\s+|completely\s+|totally\s+|really\s+)?(?:tired|exhausted|fried|beat"
    r"|wiped(?:\s+out)?|sleepy)|ugh|(?:i\s+)?(?:don'?t|do\s+not)\s+feel\s+like\s+(?:coding|working)"
    r"(?:\s+today)?|no\s+more\s+(?:coding|code|work)(?:\s+(?:today|tonight))?",
    # the twentieth set's kinds: rain, and no will to work: "raining again, can't be bothered"
    r"(?:it'?s\s+)?raining(?:\s+again)?|can'?t\s+be\s+bothered|(?:i'?m\s+)?(?:so\s+)?lazy\s+today",
    # the twenty-first set's kinds, in other wordings: a mind changed, a bad day: "forget
    # it, I changed my mind", "just not my day"
    r"(?:i'?ve\s+|i\s+)?changed\s+my\s+mind"
    r"|(?:(?:it'?s|today\s+is|this\s+is)\s+)?(?:just\s+)?not\s+my\s+day",
    # taking back what was asked: "cancel my last request", "forget what I just asked"
    r"(?:please\s+)?(?:cancel|disregard|ignore|forget|drop)\s+(?:my|the)\s+(?:last|previous|earlier)"
    r"\s+(?:request|message|question|ask)|(?:cancel|disregard|ignore|forget)\s+what\s+i\s+(?:just\s+)?"
    r"(?:asked(?:\s+for)?|said|wrote)(?:\s+(?:earlier|before))?",
    # the twenty-second set's kinds, in other wordings: thanks for the patience, a downpour:
    # "thanks for your patience with me", "it's pouring again"
    r"(?:thanks|thank\s+you)\s+for\s+(?:your|the)\s+patience(?:\s+with\s+me)?"
    r"|(?:it'?s\s+)?(?:pouring|bucketing\s+down)(?:\s+(?:again|outside))?",
    # the twenty-third set's kinds, in other wordings: an explanation praised, rain that
    # will not stop, how the day goes, green tests: "great explanation, super clear",
    # "anyway, how's your thursday going?", "the tests all pass now"
    r"(?:(?:that|the|your)\s+(?:last\s+)?)?explanation\s+(?:was|is)\s+(?:(?:really|super|very|so)\s+)?"
    r"(?:clear|helpful|great)|(?:great|clear|nice)\s+explanation|anyways?|super\s+clear",
    rf"(?:it'?s\s+been\s+)?raining\s+(?:nonstop|all\s+day|for\s+days)(?:\s+here)?|how'?s\s+(?:your|the)"
    rf"\s+(?:week|{_EN_DAYS})(?:\s+going)?|(?:just\s+)?surviving\s+(?:the\s+)?meetings(?:\s+(?:over\s+)?here)?"
    r"|(?:(?:all\s+)?(?:the\s+)?tests\s+(?:all\s+)?(?:are\s+)?(?:(?:all\s+)?green|pass(?:ing)?)(?:\s+now)?)",
    # a place after the rain, a day hoped better, a problem gone by itself (lexically):
    # "raining again in Leeds", "hope your week is going better than mine", "it sorted
    # itself out"
    r"(?:it'?s\s+)?raining(?:\s+again)?\s+in\s+[^\W\d_]+|(?:i\s+)?hope\s+your\s+(?:day|week)(?:'?s|\s+is)?\s+"
    r"going\s+better\s+than\s+mine|(?:it\s+)?sorted\s+itself\s+out",
    # the twenty-fourth set's kinds (lexically), in other wordings: logging off, the heat in a
    # named town: "signing off for today", "it's so hot in Madrid"
    r"(?:i'?m\s+)?(?:logging|signing)\s+off(?:\s+(?:for\s+)?(?:now|today|tonight|the\s+(?:day|weekend)))?"
    r"|it'?s\s+(?:so\s+|really\s+|way\s+too\s+)?(?:hot|cold|freezing)\s+in\s+[^\W\d_]+",
    # the twenty-fifth set's kind (lexically), in other wordings: off to make a coffee
    r"(?:i'?m\s+)?(?:gonna|going\s+to)\s+(?:make|grab|get)\s+(?:myself\s+)?(?:a\s+)?(?:coffee|tea)",
    # the twenty-sixth set's kinds, in other wordings: an answer that made one's day, a top
    # explanation: "haha you made my afternoon with that one", "top explanation"
    r"(?:you\s+)?(?:made|brightened)\s+my\s+(?:day|afternoon|morning|evening)(?:\s+with\s+that(?:\s+one|\s+answer)?)?"
    r"|top\s+explanation|exactly\s+how\s+i\s+wanted\s+it",
    # the twenty-seventh set's kind: asking about the weather, in every language: "what's
    # the weather like tomorrow in Hamburg?", "is it going to rain today?"
    r"(?:do\s+you\s+know\s+)?(?:what'?s|what\s+is|how'?s|how\s+is)\s+the\s+weather(?:\s+like)?"
    r"(?:\s+(?:today|tomorrow|this\s+weekend))?(?:\s+in\s+[^\W\d_]+)?(?:\s+(?:today|tomorrow))?"
    r"|(?:is\s+it|will\s+it)\s+(?:going\s+to\s+)?(?:rain|snow)(?:\s+(?:today|tomorrow))?(?:\s+in\s+[^\W\d_]+)?",
    # the twenty-eighth set's kinds: the build green again, a week off to a good start, an
    # answer that cleared it up: "the build is green again", "hope your week is off to a
    # decent start", "that clears it up"
    r"(?:the\s+)?(?:build|pipeline|ci)(?:'s|\s+is)\s+(?:green|passing)(?:\s+(?:again|now))?"
    r"|hope\s+your\s+(?:week|day|weekend|monday|morning)\s+is\s+off\s+to\s+a\s+(?:good|great|decent|nice|solid)"
    r"\s+start|(?:that|this)\s+clears\s+(?:it|that|things)\s+up",
    # the twenty-ninth set's kinds: a show to watch, food preferences: "any good series to
    # recommend for the weekend?", "pizza or sushi, which is better?"
    r"(?:got\s+|have\s+you\s+got\s+|do\s+you\s+have\s+)?any\s+(?:good\s+)?(?:shows?|series|movies?|films?|books?)"
    r"\s+(?:to\s+recommend|you'?d\s+recommend)(?:\s+for\s+(?:the|this)\s+weekend)?"
    r"|(?:can\s+you\s+)?recommend\s+(?:me\s+)?(?:a\s+)?(?:good\s+)?(?:show|series|movie|film|book)(?:\s+for\s+(?:the|this)\s+weekend)?",
    # the thirtieth set's kinds: which of two one prefers, a match seen, just saying hi:
    # "cats or dogs, which do you prefer?", "did you see the game last night?"
    r"(?:which\s+do\s+you\s+prefer,?\s+)?(?:beach|mountains?|cats?|dogs?|tea|coffee|summer|winter)\s+or\s+"
    r"(?:beach|mountains?|cats?|dogs?|tea|coffee|summer|winter)(?:,?\s+which\s+do\s+you\s+prefer)?"
    r"|did\s+you\s+(?:see|watch|catch)\s+the\s+(?:game|match)(?:\s+(?:last\s+night|yesterday|this\s+weekend))?"
    r"|just\s+(?:saying|wanted\s+to\s+say)\s+hi",
)
