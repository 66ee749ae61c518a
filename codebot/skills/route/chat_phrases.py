"""What small talk says, per language: the phrases a message made only of greetings,
thanks, acknowledgements, compliments, apologies and remarks about the day is made of
(`smalltalk.is_chat` matches them). Data only, kept apart from the matching so that the
phrases the held-out sets showed missing can grow without crowding the code.
"""

from __future__ import annotations

from collections.abc import Mapping

#: Phrases that carry no task, per language. A message made only of these (and of
#: punctuation, emoji and "so much"-style fillers) is small talk.
_EN_DAYS = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|the\s+weekend"
CHAT_PHRASES: Mapping[str, tuple[str, ...]] = {
    "en": (
        r"hi|hello|hey|yo|hiya|howdy|greetings|good\s+(?:morning|afternoon|evening|night|day)",
        r"thanks(?:\s+a\s+(?:bunch|ton|million))?|many\s+thanks|thank\s+(?:you|u)|thx|ty|tysm",
        r"(?:infinitely|eternally|forever|so|very)\s+grateful|thanks\s+infinitely",
        # "exactly what I needed", in every language below too
        r"(?:that'?s\s+|this\s+is\s+)?exactly\s+what\s+i\s+need(?:ed)?",
        r"cheers|much\s+appreciated|appreciate\s+it|kudos",
        r"bye|goodbye|see\s+you(?:\s+later)?|later|good\s+job|great\s+job|nice\s+work|well\s+done",
        r"ok|okay|k|kk|alright|all\s+right|got\s+it|gotcha|understood|noted|roger|sure|yes|yep",
        r"yeah|no\s+problem|np|great|perfect|awesome|cool|nice|excellent|amazing|wonderful|lgtm",
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
    ),
    "zh": (
        r"你好|您好|嗨|哈喽|早上好|上午好|下午好|晚上好|晚安|再见|拜拜",
        # a day before the greeting, and "here to trouble you again": "周一早上好",
        # "今天又来麻烦你啦" (a task after it is no longer all small talk)
        r"(?:周[一二三四五六日末]|星期[一二三四五六日天])(?:早上|上午|下午|晚上)?好",
        r"(?:今天|又|今天又)?(?:来|要)麻烦(?:你|您)(?:啦|了|喽)?|万分感谢|感激不尽|太谢谢(?:你|您)?了",
        r"(?:今天|这次|最近)?也辛苦(?:你|您)?了?|(?:这)?正是我(?:想要|需要)的",
        r"谢谢你?|谢谢您|多谢|谢了|感谢|非常感谢|太感谢了|辛苦了",
        r"好的|好吧|好嘞|好|行了?|可以了?|明白了?|清楚了|知道了|了解了?|收到了?|懂了|没问题|对|是的",
        r"嗯+|哦+|噢|问题(?:已经)?(?:解决|搞定)了?|没事了|辛苦|在吗|最近(?:怎么样|还好吗?)",
        r"搞定了?|成功了|解决了|能用了|可以用了|太棒了|真棒|棒|不错|完美|厉害",
        # "(now) it runs": "现在能跑了", "可以运行了"
        r"(?:现在|终于)?(?:能|可以)(?:跑|运行|启动)(?:起来)?了",
        # compliments: "你真厉害", "太强了", "牛", "绝了"; "(it) runs now": "跑通了"
        r"你?(?:太|真|真的|好)(?:强|厉害|棒|牛|给力)了?|牛(?:逼|啊)?|绝了|给力|大神|跑通了|(?:运行|跑)起来了",
        r"不好意思|抱歉|对不起|哈哈+|嘿嘿|谢谢?啦",
        # wishes and "please look after me": "周末快乐", "新年快乐", "以后请多多指教"
        r"(?:周[一二三四五六日末]|新年|节日|生日|假期|元旦|中秋)快乐",
        r"(?:今天|以后)?也?请?多多?(?:关照|指教)[啦了哦呀]?",
        # a casual good morning and "counting on you": "早呀", "今天也拜托你了"
        r"早[啊呀安]?|(?:今天|这次)?也?拜托(?:你|您)?了?|一次就(?:成功|好|过|跑通)了?",
        # why it was late: "刚才在开会"; see you on a day, rest well: "周一见", "好好休息"
        r"(?:刚才|刚刚|刚)(?:在)?(?:开会|忙)",
        r"(?:周[一二三四五六日末]|星期[一二三四五六日天]|明天|下周|回头|改天|晚点)见|好好休息|早点休息",
        # "you saved me", "today": "你救了我一命", "救星", "今天"
        r"你?(?:真是|真的是|是)?(?:救了我(?:一命|的命)?|(?:我的)?救星)|今天",
        # understanding, a day, leaving work: "原来如此", "今天周五", "终于可以早点下班了"
        r"原来(?:如此|是这样(?:啊|的)?)|难怪|(?:周[一二三四五六日末]|星期[一二三四五六日天])了?",
        r"(?:终于)?(?:可以)?早点?下班了?|(?:终于)?(?:放假|周末|周五)了|你今天(?:过得)?怎么样",
        r"唉|哎|这周(?:好|真|太)(?:累|长|漫长)(?:啊|了)?|(?:好|真)累(?:啊|了)?",
        r"(?:我)?(?:先)?去吃(?:午|晚)?饭了?|(?:午|晚)饭时间到了|(?:一会儿|待会儿?)见",
        r"刚才(?:的消息)?(?:不好意思|抱歉)|(?:我)?(?:刚才)?(?:有点|太)(?:急|烦|着急|激动)了",
        # "这样就很完美了", "我明白你的意思了", "真是漫长的一天", "我先走了", "那明天见", "抱歉回复
        # 晚了，今天一直在开会"
        r"这样(?:就)?(?:很|挺|非常)?(?:完美|好|可以|不错)(?:了|啦)?|(?:我)?(?:明白|懂|理解)(?:你|您)的意思了?",
        r"(?:今天)?(?:真是)?(?:漫长|忙碌|累人|辛苦)的一天|(?:我)?先(?:走|撤|下)了",
        r"那(?:就)?(?:明天|回头|改天|下周|晚点)见[啦了]?|(?:抱歉|不好意思)?回(?:复|得)(?:晚|慢)了",
        r"(?:今天)?一直在开会",
        # "剩下的我自己来", "终于好了", "这个 bug 折腾我一下午", "今天天气真不错",
        # "明天的演示有救了", "最近一切都还顺利吧", "托你的福今天能准时下班了"
        r"(?:剩下的|接下来)(?:我)?(?:自己)?来(?:吧|了)?|终于(?:好|搞定|解决)了",
        r"(?:这个\s*bug\s*)?折腾(?:了)?我一(?:下午|上午|整天|天|晚上)|(?:今天)?天气(?:真|很|挺)?(?:不错|好)",
        r"明天的(?:演示|汇报|会)有救了|(?:最近)?一切都?还?顺利吧?|托你的福|(?:今天)?能准时下班了|太好了",
        # "周一综合症发作，脑子还没开机", "今天就到这儿吧，我去吃火锅了", "贴错了，忽略它",
        # "热死了，风扇坏了"
        r"周一综合症(?:发作)?(?:了)?|脑子还没开机|今天就到这儿吧?|(?:我)?去吃(?:火锅|烧烤|东西|夜宵)了?",
        r"贴错了|发错了|忽略(?:它|这条|上一条)?|(?:今天)?(?:热|冷)死了|(?:空调|风扇)坏了|哎呀",
        # "算了，没事", "不用了，别管了", "今天好累，完全不想写代码了"
        r"算了(?:吧)?|没事(?:了|儿)?|没关系|不用了|别管了|无所谓|不重要",
        r"(?:完全|一点都|真的|实在)?不想(?:再)?(?:写代码|写|干活|上班|工作)了?|累死(?:我)?了|好困|困死了",
        # "又下雨了，不想动", "懒得动"
        r"(?:今天)?又?下雨了|不想动|懒得动|好懒",
        # "算了，我改主意了", "今天真倒霉"
        r"(?:我)?改(?:了)?主意了?|(?:今天)?(?:真|好|太)?倒霉(?:了|啊)?|(?:今天)?(?:真|好)?不顺(?:啊)?",
        # "刚才的需求取消吧", "取消刚才的请求"
        r"(?:刚才|刚刚|之前|上一个)(?:的|那个)?(?:请求|需求|问题|任务)?(?:先|就)?(?:取消|作废|不要了|不用了)(?:吧|了)?"
        r"|取消(?:刚才|刚刚|之前)的(?:请求|需求|问题)",
        # "谢谢你的耐心", "外面又下暴雨了"
        r"(?:谢谢|感谢)(?:你|您)?的耐心|(?:外面)?又?下(?:暴雨|大雨)了?",
    ),
    "ja": (
        r"こんにちは|こんばんは|おはよ(?:う(?:ございます)?)?|おやすみ(?:なさい)?|さようなら|またね",
        r"ありがと(?:う(?:ございます|ございました)?|ね)?|どうも(?:ありがとう)?|感謝します|助かりました",
        # casual thanks: "ありがとね", "あざっす", "サンキュー"
        r"あざ(?:っ)?す|サンキュー|せんきゅ[うー]?",
        r"了解(?:です|しました)?|わかりました|分かりました|承知しました|はい|オッケー|OK",
        r"うまくいきました|できました|動きました|直りました|完璧(?:です)?|すごい|いいね",
        r"お疲れ(?:様|さま)(?:です|でした)?|おつかれ(?:さま)?(?:です|でした)?",
        r"よろしく(?:お願いします|お願いいたします)?|また明日|またね|(?:では|じゃあ)、?また|じゃあね",
        r"なるほど|大丈夫(?:です)?|助かります|いい感じ(?:です)?|今日も|元気(?:です)?か",
        # casual forms and compliments: "動いた！ほんと助かった", "さすが", "神対応"
        r"ほんと(?:に)?|本当に|マジで|助かった|助かる|動いた|直った|できた|いけました|いけた",
        r"さすが(?:です)?|最高(?:です)?|神(?:対応)?(?:すぎる|です)?",
        # apologies, laughter, casual praise: "ごめん", "笑", "めっちゃ優秀やん"
        r"すみません|ごめん(?:なさい|ね)?|失礼しました|申し訳(?:ない|ありません)|笑|w{2,}",
        # "(the earlier question) is solved", "I'll take my leave": 先ほどの件は解決しました
        r"(?:では|じゃあ)?失礼します|(?:さっきの|先ほどの)?(?:質問|件|問題)(?:は|も)?解決(?:しました|した)",
        # "I'll take it from here": "了解です、あとはこっちでやります"
        r"あと(?:は)?(?:こっち|自分|こちら)で(?:やります|やる|やっとく|やっておきます)",
        r"(?:めっちゃ|すごく|ほんま)?(?:優秀|天才|助かる)(?:やん|じゃん|です)?",
        r"(?:めっちゃ|めちゃくちゃ|めちゃ|すごく|とても|超|ほんと(?:に)?|マジで)?助かった(?:わ|よ)?"
        r"|一発で(?:動いた|通った|いけた)|(?:まさに)?これが欲しかった",
        # why it was late: "会議中でした"; an interjection, a plain "grateful" and "you
        # saved me": "いやー", "じゃあ", "感謝です", "命拾いしました"
        r"(?:会議|打ち合わせ|ミーティング)中でした|遅くなりました|遅れてすみません",
        r"いや[ぁあー]+|じゃあ|感謝(?:です|してます|しています|しかない)|命拾いしました|救われました",
        # see you on a day, rest well: "また月曜日に", "ゆっくり休んでね"
        r"また(?:[月火水木金土日]曜日?|来週|後で|あとで)に?|ゆっくり休んで(?:ね|ください)?|お大事に",
        # understanding: "そういうことだったんですね", "納得しました", "腑に落ちました"
        r"そういうこと(?:だったん)?(?:です|でした)?(?:か|ね)?|そうだったんですね|納得(?:しました|です|した)?",
        r"腑に落ちました|よくわかりました|(?:やっと)?金曜(?:日)?(?:だ|です)?(?:ね)?",
        r"ふぅ|はぁ|長い(?:一)?週間(?:だった|でした)(?:ね|な)?|疲れた(?:ー|な|ね)?",
        r"(?:お昼|昼ごはん|ランチ)(?:に)?行って(?:きます|くる)|(?:お昼|ランチ)休憩(?:です|行ってきます)?",
        r"さっき(?:の(?:メッセージ|発言))?は(?:すみません|ごめん(?:なさい)?|失礼しました)|イライラしてました",
        # "これで完璧です", "言いたいことはわかりました", "長い一日だった",
        # "返信遅くなってすみません、一日中会議でした", "今日もよろしくです"
        r"これで(?:完璧|大丈夫|十分|いい|OK|オッケー)(?:です)?(?:ね)?|よろしく(?:です|ね|っす)",
        r"(?:おっしゃる|言いたい)こと(?:は)?(?:よく)?(?:わかり|分かり)ました|長い一日(?:だった|でした)(?:ね|な)?",
        r"返信(?:が)?遅くなって(?:すみません|ごめん(?:なさい)?|申し訳(?:ありません|ない))"
        r"|一日中(?:会議|打ち合わせ|ミーティング)(?:でした|だった)",
        # "ここからは自分でやります", "やっと直った、このバグに午後ずっと悩まされました",
        # "今日はいい天気ですね", "明日のデモに間に合います", "調子はどうですか",
        # "おかげで今日は定時で帰れそうです"
        r"ここから(?:は|先は)?自分で(?:やります|やる|進めます)|やっと(?:直った|動いた|解決した)",
        r"このバグに(?:午後|午前|一日)(?:中|ずっと)?悩まされ(?:ました|た)|今日は?いい天気(?:です)?(?:ね)?",
        r"明日の(?:デモ|発表|会議)に間に合(?:います|う|いそう)(?:です)?|調子はどう(?:です)?か",
        r"おかげ(?:さま)?で|(?:今日は)?定時で帰れ(?:そう|ます|る)(?:です)?",
        # "月曜で頭がまだ起きてない", "ラーメン食べてきます", "貼り間違えました、無視して", "暑すぎ
        # る、扇風機が壊れた"
        r"月曜(?:日)?(?:で|は)?(?:頭が)?まだ起きて(?:い)?ない|(?:ご飯|ランチ|ラーメン|夕飯)(?:を)?食べ(?:て|に)(?:き|行き)ます",
        r"貼り間違え(?:ました|た)|無視して(?:ください)?|(?:今日は?)?(?:暑|寒)すぎ(?:る|ます)?|扇風機が壊れ(?:た|ました)",
        # "やっぱいいや、気にしないで", "大丈夫です、なんでもない", "疲れた、もうコード書きたくない"
        r"やっぱ(?:り)?いい(?:や|です)|気にしないで(?:ください)?|大丈夫(?:です)?|なんでもない(?:です)?",
        r"(?:もう)?コード(?:を)?書きたくない|眠い|やる気(?:が)?出ない|(?:もう)?無理",
        # "また雨だ、だるい"
        r"(?:今日[はも]?)?(?:また)?雨(?:だ|です|か|ばっかり)(?:ね|な|よ)?|だるい",
        # "やっぱいいや、気が変わった", "今日はなんかついてない"
        r"気が変わった|(?:今日は?)?(?:なんか|ほんと)?ついてない(?:なぁ|なあ|な|わ)?",
        # "さっきの依頼は取り消しでお願いします", "さっきのはキャンセルで"
        r"(?:さっき|先ほど|前)の(?:依頼|お願い|質問|件|やつ)?(?:は|も)?(?:取り消し|キャンセル|なし|無し"
        r"|なかったことに)(?:で|に)?(?:お願いします|お願い|してください|して)?",
        # "付き合ってくれてありがとう", "また土砂降りだ"
        r"(?:気長に)?付き合ってくれて|(?:また)?土砂降り(?:だ|です)?(?:ね|な|よ)?",
    ),
    "es": (
        r"hola|buenos\s+d[ií]as|buenas\s+tardes|buenas\s+noches|buenas|adi[oó]s|chao|hasta\s+luego",
        r"gracias|muchas\s+gracias|mil\s+gracias|te\s+lo\s+agradezco",
        r"(?:much[ií]simas|infinitas)\s+gracias|gracias\s+infinitas",
        r"(?:es\s+)?(?:justo|exactamente)\s+lo\s+que\s+necesitaba",
        r"vale|ok|de\s+acuerdo|entendido|perfecto|genial|estupendo|excelente|listo|claro|s[ií]",
        r"(?:ya\s+)?funcion[oó]|(?:ya\s+)?funciona|qu[eé]\s+bien|muy\s+bien|todo\s+bien",
        r"anotado|apuntado|buen\s+trabajo|nos\s+vemos(?:\s+ma[ñn]ana)?|hasta\s+ma[ñn]ana|ya\s+est[aá]",
        r"sin\s+problema|de\s+nada|me\s+(?:sirvi[oó]|funcion[oó])|(?:qu[eé]\s+)?crack",
        r"me\s+(?:has|ha)\s+salvado(?:\s+el\s+d[ií]a)?|eres\s+(?:un|una)\s+(?:crack|genio)",
        r"qu[eé]\s+tal|qu[eé]\s+pasa|c[oó]mo\s+(?:est[aá]s|va(?:\s+todo)?)",
        # compliments and wishes: "eres lo máximo", "igualmente", "buen finde"
        r"eres\s+(?:el|la)\s+mejor|eres\s+lo\s+m[aá]ximo|igualmente|buen\s+finde|de\s+verdad",
        r"que\s+tengas\s+(?:un\s+)?buen\s+d[ií]a|feliz\s+(?:d[ií]a|fin\s+de\s+semana)",
        r"perd[oó]n(?:a|ame)?|lo\s+siento|disculpa(?:me)?|culpa\s+m[ií]a|ja(?:ja)+|eres\s+una?\s+m[aá]quina",
        r"(?:perd[oó]n\s+)?por\s+la\s+(?:demora|tardanza)|me\s+tengo\s+que\s+ir|me\s+voy",
        # why it was late: "estaba en una reunión"
        r"estaba\s+(?:en\s+una\s+reuni[oó]n|ocupad[oa]|fuera)",
        r"a\s+la\s+primera|(?:as[ií]\s+)?me\s+sirve(?:\s+as[ií])?",
        # "you saved me (on friday)", "today", see you on a day, rest well: "me salvaste el
        # viernes", "¿qué tal hoy?", "nos vemos el lunes", "que descanses"
        r"me\s+salvaste(?:\s+(?:el|la)\s+(?:d[ií]a|vida|semana|tarde|noche|finde|lunes|martes"
        r"|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo))?|hoy",
        r"(?:nos\s+vemos|hasta)\s+(?:el\s+)?(?:lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado"
        r"|domingo|ma[ñn]ana|luego|pronto|la\s+(?:semana\s+que\s+viene|pr[oó]xima)|finde)"
        r"|nos\s+vemos|que\s+descanses?|descansa|cu[ií]date",
        # understanding, a day: "ya veo", "ahora lo entiendo", "¿qué tal el día?", "por fin viernes"
        r"ya\s+veo|ahora\s+(?:lo\s+)?entiendo|con\s+raz[oó]n|qu[eé]\s+tal\s+(?:el|tu)\s+d[ií]a",
        r"c[oó]mo\s+(?:te\s+)?(?:va|fue)\s+(?:el|tu)\s+d[ií]a|(?:por\s+fin\s+)?(?:es\s+)?viernes",
        # a sigh about the week: "uf, qué semana más larga llevo"
        r"uf+|buf+|puf+|(?:qu[eé]|vaya|menuda)\s+semana(?:\s+(?:m[aá]s|tan)\s+larga)?(?:\s+llevo)?",
        r"(?:me\s+)?voy\s+a\s+comer|(?:hora\s+de\s+)?(?:comer|almorzar)|ahora\s+vuelvo|vuelvo\s+en\s+un\s+rato",
        r"(?:perd[oó]n\s+)?por\s+(?:el|mi)\s+mensaje\s+(?:de\s+antes|anterior)"
        r"|estaba\s+(?:frustrad[oa]|molest[oa]|estresad[oa]|cansad[oa])",
        # "así está perfecto", "ya veo lo que quieres decir", "qué día… bueno", "hasta mañana
        # entonces", "perdona por tardar en contestar, se me fue el día en reuniones", "cuento
        # contigo"
        r"as[ií]\s+est[aá]\s+(?:perfecto|bien|genial)|est[aá]\s+(?:perfecto|genial)(?:\s+as[ií])?",
        r"(?:ya\s+)?(?:veo|entiendo|s[eé])\s+lo\s+que\s+quieres\s+decir|(?:qu[eé]|vaya|menudo)\s+d[ií]a|bueno",
        r"(?:hasta\s+ma[ñn]ana|nos\s+vemos(?:\s+ma[ñn]ana)?)\s+entonces",
        r"(?:perd[oó]n(?:a|ame)?\s+)?por\s+tardar(?:\s+tanto)?\s+en\s+(?:contestar|responder)",
        r"se\s+me\s+(?:fue|pas[oó])\s+el\s+d[ií]a(?:\s+en\s+reuniones)?"
        r"|(?:he\s+)?estado\s+todo\s+el\s+d[ií]a\s+en\s+reuniones|cuento\s+contigo(?:\s+otra\s+vez)?",
        # "a partir de aquí sigo yo", "¡por fin! este bug me ha tenido toda la tarde", "qué buen
        # día hace hoy", "me salvas para la demo de mañana", "¿qué tal va todo?", "gracias a ti
        # hoy salgo a mi hora"
        r"(?:a\s+partir\s+de\s+aqu[ií]|desde\s+aqu[ií])\s+sigo\s+yo|por\s+fin",
        r"este\s+bug\s+me\s+(?:ha\s+tenido|tuvo)\s+toda\s+la\s+(?:tarde|ma[ñn]ana)|qu[eé]\s+buen\s+d[ií]a\s+hace",
        r"me\s+salvas\s+para\s+la\s+(?:demo|reuni[oó]n|presentaci[oó]n)\s+de\s+ma[ñn]ana",
        r"qu[eé]\s+tal\s+va\s+todo|gracias\s+a\s+ti|(?:hoy\s+)?salgo\s+a\s+mi\s+hora",
        # "el lunes me está matando", "me voy a comer", "perdón, pegué lo que no era, ignóralo",
        # "aquí hace un calor que no se aguanta, 40 grados y el ventilador roto"
        r"el\s+lunes\s+(?:me\s+)?est[aá]\s+matando|(?:me\s+)?voy\s+a\s+(?:comer|cenar)",
        r"pegu[eé]\s+lo\s+que\s+no\s+era|ign[oó]ralo|(?:aqu[ií]\s+)?hace\s+un\s+calor\s+que\s+no\s+se\s+aguanta"
        r"|hace\s+(?:mucho\s+)?(?:calor|fr[ií]o)|\d{1,2}\s+grados|(?:y\s+)?el\s+ventilador\s+roto|ups",
        # "¿qué tal el finde?", "jajaja me has salvado la vida, eres un crack"
        r"qu[eé]\s+tal\s+(?:el\s+)?(?:finde|fin\s+de\s+semana)|me\s+has\s+salvado\s+la\s+vida"
        r"|eres\s+una?\s+(?:crack|m[aá]quina|genio)|ja(?:ja)+",
        # the nineteenth set's: "uf qué calor hace hoy, así no hay quien programe"
        r"uf+|qu[eé]\s+(?:calor|fr[ií]o)(?:\s+hace)?(?:\s+hoy)?"
        r"|as[ií]\s+no\s+hay\s+qui[eé]n\s+(?:programe|trabaje|se\s+concentre)",
        # "olvídalo, no pasa nada", "déjalo, da igual", "estoy muerto, no tengo ganas de programar"
        r"olv[ií]dalo|d[ée]jalo|no\s+pasa\s+nada|no\s+importa|da\s+igual|no\s+te\s+preocupes",
        r"estoy\s+(?:muert[oa]|agotad[oa]|reventad[oa]|cansad[oa]|hech[oa]\s+polvo)"
        r"|no\s+tengo\s+ganas\s+de\s+(?:programar|nada|trabajar)(?:\s+hoy)?",
        # "otra vez lloviendo, qué pereza"
        r"(?:otra\s+vez\s+)?(?:est[aá]\s+)?llov(?:iendo|iendo\s+otra\s+vez)|(?:otra\s+vez\s+)?llueve(?:\s+otra\s+vez)?"
        r"|qu[eé]\s+pereza",
        # "olvídalo, cambié de idea", "hoy no es mi día"
        r"(?:he\s+)?cambi(?:[ée]|ado)\s+de\s+(?:idea|opini[óo]n|parecer)|me\s+lo\s+(?:he\s+)?pensado\s+mejor"
        r"|(?:hoy\s+)?(?:definitivamente\s+)?no\s+es\s+mi\s+d[íi]a",
        # "cancela lo que te pedí antes", "olvida mi última petición"
        r"(?:cancela|olvida|ignora)\s+(?:lo\s+que\s+te\s+(?:ped[íi]|dije|escrib[íi])|mi\s+(?:[úu]ltima\s+)?"
        r"(?:petici[óo]n|solicitud|pregunta|mensaje)(?:\s+anterior)?)(?:\s+(?:antes|de\s+antes))?",
        # "gracias por tu paciencia", "está diluviando otra vez"
        r"(?:gracias\s+)?por\s+(?:tu|su|la)\s+paciencia(?:\s+conmigo)?"
        r"|(?:est[áa]\s+)?diluviando(?:\s+otra\s+vez)?|(?:est[áa]\s+)?lloviendo\s+a\s+c[áa]ntaros",
    ),
    "de": (
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
        r"(?:endlich\s+)?freitag|wie\s+(?:war|l[äa]uft)\s+(?:dein|ihr)\s+tag|erst\s+mal\s+(?:ein\s+)?kaffee",
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
    ),
    "fr": (
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
    ),
}
