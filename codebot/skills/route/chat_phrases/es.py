"""Small talk in Spanish: the phrases of `chat_phrases`."""

from __future__ import annotations

PHRASES: tuple[str, ...] = (
    r"hola|oye|buenos\s+d[ií]as|buenas\s+tardes|buenas\s+noches|buenas|adi[oó]s|chao|hasta\s+luego",
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
    r"qu[eé]\s+tal\s+(?:el\s+|tu\s+|vuestro\s+|su\s+)?(?:finde|fin\s+de\s+semana)|me\s+has\s+salvado\s+la\s+vida"
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
    # "súper bien explicado", "ya pasan todas las pruebas", "¿qué tal llevas el jueves?",
    # "aquí tirando, entre reuniones"
    r"(?:muy\s+|s[uú]per\s+)?bien\s+explicado|(?:la\s+)?explicaci[oó]n\s+(?:fue|estuvo|est[aá]|es)\s+"
    r"(?:muy\s+|s[uú]per\s+)?(?:clara|buena)|en\s+fin|(?:ya\s+)?pasan\s+tod[oa]s\s+l[oa]s\s+(?:tests|pruebas)"
    r"|todo\s+en\s+verde|(?:qu[eé]\s+tal|c[oó]mo)\s+(?:va|te\s+va|llevas)\s+(?:el|la|tu)\s+(?:d[ií]a|semana"
    r"|lunes|martes|mi[eé]rcoles|jueves|viernes)(?:\s+por\s+(?:ah[ií]|all[aá]))?|(?:por\s+)?aqu[ií]\s+"
    r"(?:sobreviviendo|tirando|luchando)(?:\s+(?:a\s+las|entre)\s+reuniones)?|entre\s+reuniones",
    # "llueve otra vez en Bilbao", "espero que tu día vaya mejor que el mío", "ya se arregló solo"
    r"(?:otra\s+vez\s+)?llueve(?:\s+otra\s+vez)?\s+en\s+[^\W\d_]+|espero\s+que\s+tu\s+(?:d[ií]a|semana)\s+"
    r"(?:vaya|est[eé]\s+yendo)\s+mejor\s+que\s+(?:el|la)\s+m[ií][oa]|(?:ya\s+)?se\s+(?:solucion[oó]|arregl[oó])(?:\s+solo)?",
    # "me desconecto hasta el lunes", "qué frío hace hoy en Burgos", "así no hay quien programe"
    r"me\s+desconecto(?:\s+hasta\s+(?:ma[ñn]ana|el\s+lunes))?|qu[eé]\s+(?:calor|fr[ií]o)\s+hace(?:\s+hoy)?\s+en"
    r"\s+[^\W\d_]+|as[ií]\s+no\s+hay\s+quien\s+(?:programe|trabaje|se\s+concentre)",
    # "voy a hacerme un café, ahora vuelvo"
    r"(?:me\s+)?voy\s+a\s+(?:hacerme|por|tomarme|prepararme)\s+un\s+(?:caf[ée]|t[ée])|ahora\s+vuelvo",
    # "me has alegrado la tarde con esa respuesta", "top explicación, justo como lo quería"
    r"me\s+has\s+alegrado\s+(?:el\s+d[ií]a|la\s+tarde|la\s+ma[ñn]ana|la\s+noche)(?:\s+con\s+esa\s+respuesta)?"
    r"|top\s+explicaci[oó]n|justo\s+como\s+lo\s+quer[ií]a",
    # the weather asked: "¿sabes qué tiempo hará mañana en Madrid?"
    r"(?:sabes\s+)?qu[eé]\s+tiempo\s+(?:hace|har[aá]|va\s+a\s+hacer)(?:\s+(?:hoy|ma[ñn]ana|este\s+finde"
    r"|este\s+fin\s+de\s+semana))?(?:\s+en\s+[^\W\d_]+)?(?:\s+(?:hoy|ma[ñn]ana))?"
    r"|(?:va\s+a\s+llover|llover[aá])(?:\s+(?:hoy|ma[ñn]ana))?(?:\s+en\s+[^\W\d_]+)?",
    # "la build vuelve a estar en verde", "eso lo aclara"
    r"(?:la|el)\s+(?:build|pipeline|ci)\s+(?:vuelve\s+a\s+estar|est[aá](?:\s+otra\s+vez)?)\s+en\s+verde"
    r"|eso\s+lo\s+aclara(?:\s+todo)?",
    # "¿me recomiendas alguna serie para el finde?"
    r"(?:me\s+)?recomiendas\s+(?:alguna|una)\s+(?:serie|peli|pel[ií]cula|libro)(?:\s+para\s+(?:el|este)\s+(?:finde"
    r"|fin\s+de\s+semana))?",
    # "Oye, ¿tú qué prefieres, playa o montaña?", "¿viste el partido?"
    r"(?:y\s+)?(?:t[uú]\s+)?qu[eé]\s+prefieres,?\s+[^\W\d_]+\s+o\s+[^\W\d_]+"
    r"|(?:viste|has\s+visto)\s+el\s+partido(?:\s+(?:de\s+)?[^\W\d_]+)?(?:\s+(?:de\s+)?anoche|\s+del\s+finde)?",
)
