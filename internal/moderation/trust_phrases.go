package moderation

import "strings"

// Phrases are word patterns matched on Normalize's words: each token lists
// alternatives ("a|b"); a trailing "?" makes it optional; "w*" matches any
// word starting with w; "~" skips zero to three words. The first token is
// plain words (it indexes the pattern). Matching walks the words once,
// trying only the patterns that start with the word at hand, and a token
// never backtracks more than the gap's four choices: linear in the text.

type ptoken struct {
	alts   []string
	set    map[string]struct{} // alts, when there are many
	prefix []string
	opt    bool
	gap    bool
}

type phrase struct {
	toks []ptoken
	bit  uint8
}

func (p *phrase) match(words []string, i int) bool { return matchFrom(p.toks, words, i) }

func matchFrom(toks []ptoken, words []string, i int) bool {
	if len(toks) == 0 {
		return true
	}
	t := toks[0]
	if t.gap {
		for k := 0; k <= 3 && i+k <= len(words); k++ {
			if matchFrom(toks[1:], words, i+k) {
				return true
			}
		}
		return false
	}
	if i < len(words) && t.has(words[i]) && matchFrom(toks[1:], words, i+1) {
		return true
	}
	return t.opt && matchFrom(toks[1:], words, i)
}

func (t *ptoken) has(w string) bool {
	if t.set != nil {
		if _, ok := t.set[w]; ok {
			return true
		}
	} else {
		for _, a := range t.alts {
			if a == w {
				return true
			}
		}
	}
	for _, p := range t.prefix {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

func compile(src string, bit uint8) phrase {
	p := phrase{bit: bit}
	for _, f := range strings.Fields(src) {
		if f == "~" {
			p.toks = append(p.toks, ptoken{gap: true})
			continue
		}
		var t ptoken
		if strings.HasSuffix(f, "?") {
			t.opt, f = true, strings.TrimSuffix(f, "?")
		}
		for _, a := range strings.Split(f, "|") {
			if strings.HasSuffix(a, "*") {
				t.prefix = append(t.prefix, strings.TrimSuffix(a, "*"))
			} else {
				t.alts = append(t.alts, a)
			}
		}
		if len(t.alts) > 4 {
			t.set = make(map[string]struct{}, len(t.alts))
			for _, a := range t.alts {
				t.set[a] = struct{}{}
			}
		}
		p.toks = append(p.toks, t)
	}
	return p
}

// Word sets used in the patterns below.
const (
	aiWho      = "ai|llm|llms|chatbot|chatbots|chatgpt|gpt|gpt4|claude|gemini|copilot|assistant|assistants|agent|agents|bot|bots"
	aiStrong   = "ai|llm|llms|chatbot|chatgpt|gpt|gpt4|copilot|assistant|agent|bot|ki|ia"
	instrNouns = "instruction*|rule|rules|prompt*|guideline*|guardrail*|constraint*|restriction*|programming|directive*|context|safeguard*"
	limitNouns = "limit|limits|cap|caps|threshold*|ceiling|ceilings|control|controls|approval|approvals|check|checks|rules"
	limitQual  = "spending|spend|budget|purchase|purchasing|buying|daily|weekly|monthly|transaction|approval|max|maximum|safety|per"
	payBrands  = "paypal|venmo|zelle|cashapp|revolut|bitcoin|btc|ethereum|usdt|usdc|crypto|cryptocurrency|litecoin|dogecoin|monero|interac|etransfer|iban|giftcard|giftcards|moneygram|westernunion"
	keyQual    = "api|agent|secret|private|auth|authentication|bearer|session|mk|x"
	keyNouns   = "key|keys|token|tokens|credential*|secret|secrets|password|passwords"
	revealVerb = "reveal|share|send|give|tell|show|print|output|paste|repeat|leak|provide|disclose|expose|display|dump|forward|email|post|type|write|include|attach|reply"
	contactWay = "whatsapp|telegram|signal|viber|wechat|kik|snapchat|snap|instagram|insta|ig|discord|gmail|number|cell|phone|dot"
	keepOut    = "owner|user|human|principal|operator|boss|master"
)

var phraseSrc = []struct {
	bit  uint8
	pats []string
}{
	{bitInstruction, []string{
		// Addressing a model.
		"dear|attention|attn|hey|hi|hello|greetings|yo to|the|any|all|my|dear? " + aiWho,
		"note|message|instructions|instruction|memo|notice|reminder|psa|directive|request to|for the|any|all|every? " + aiWho,
		"if you|youre are? an|a? " + aiStrong + "|automated|robot|machine|language",
		"you|youre are? an|a ai|llm|chatbot|assistant|bot|language",
		"as an|a ai|llm|assistant|language",
		"ai|automated|autonomous|shopping|buying|purchasing agent|agents|assistant|assistants|buyer|buyers|bot|bots",
		"ai model|models",
		"llm|llms|chatgpt|chatbot|chatbots|gpt4",
		"language model|models",
		"any|all|every " + aiWho + " reading|processing|parsing|scanning|reviewing|summarizing|evaluating|analyzing|seeing",
		"ai|llm|model|bot|assistant|agent reading|processing|parsing|scanning this|these|the",
		"hey|hi|hello|dear|yo claude|gemini|gpt|chatgpt|copilot",
		"ai|llm|assistant|agent|bot|chatbot please|buy|purchase|pay|send|approve|accept|ignore|must|should",
		"you|youre are? now? dan|unrestricted|jailbroken",
		// Overriding its instructions.
		"ignore|ignoring|disregard|disregarding|forget|override|bypass|abandon|discard|neglect ~ " + instrNouns,
		"ignore|disregard|forget|ignoring|disregarding all? the|everything? above|foregoing",
		"dont|never|not|stop follow|obey|following|obeying ~ your|previous|prior|original|any instruction*|rule*|guideline*|programming|owner|user",
		"new|updated|real|actual|true|hidden|secret|revised|priority|override|overriding instruction*|directive*|objective|objectives|mission",
		"your new|real|actual|true|only task|role|instruction*|objective|goal|purpose|mission|directive*",
		"system prompt*|message|messages|override|instruction*|note|notice|directive*",
		"initial|hidden|original|internal|secret|developer prompt|prompts",
		"prompt injection",
		"developer|dev|admin|jailbreak|unrestricted|dan|sudo mode",
		"jailbreak*",
		"end|begin|start of? system|new? prompt|instruction*",
		"override your|all|any|previous|prior|system|safety|spending|security",
		"sudo command|access|override",
		"admin override|command",
		// Role-play.
		"pretend you|youre|to|that",
		"imagine|suppose you|youre are? an|a|my? " + aiWho + "|unrestricted|free|jailbroken",
		"act|behave|respond|operate as|like if? you|youre? are? an|a|my|the? " + aiWho + "|admin|administrator|developer|system|dan|unrestricted|jailbroken",
		"roleplay",
		"role play|playing|plays",
		"you|youre are? now in? an|a|my|the? " + aiWho + "|dan|unrestricted|free|admin|developer|jailbroken|mode|buyer|purchasing|authorized|allowed|permitted",
		"from now on you|youll|youre|your|always|only|respond|act|ignore",
		"stay|remain in character",
		// Changing limits and skipping the owner.
		"raise|increase|lift|remove|disable|bypass|ignore|double|triple|change|adjust|update|set|max|maximize|override|turn|exceed|skip|up|boost|expand|extend|unlock your|the|my|its|any|all? " + limitQual + " " + limitNouns,
		"raise|increase|lift|remove|disable|bypass|double|max|boost|unlock|exceed|ignore your|its limit|limits|cap|caps|threshold|thresholds|controls|spending",
		"your owner|owners|users spending|budget|purchase|approval|payment|card|cards|limit*|cap*",
		"your spending|purchase|purchasing|budget|approval limit*|cap*|control*|threshold*|rules",
		"without asking|approval|confirmation|confirming|checking|consulting|notifying|telling|permission|authorization|consent from|with|to? your|the? " + keepOut + "|creator",
		"without owner|user|human|principal approval|confirmation|consent|permission",
		"dont|never|not ask|tell|notify|inform|consult|confirm|check|alert|mention|wait ~ your " + keepOut,
		"dont|never|not ask|tell|notify|inform|consult|confirm|check|alert|mention|wait ~ the owner|human|principal",
		"your owner|human|principal|creator|developers|programmers",
		"tell|ask|notify|inform your user|users",
		"auto|automatically approve|accept|buy|purchase|confirm|pay",
		"approve|authorize|accept|confirm|complete|execute this|the purchase|transaction|payment|order automatically",
		"approve|authorize this|the purchase|transaction|payment immediately|instantly|now",
		"buy|purchase|pay|accept ~ at any price|cost",
		"regardless of the? price|cost|limit|limits|budget|instructions|rules|approval",
		"skip|bypass|avoid|ignore the|any? approval|confirmation|verification step?|process?|check?|checks?",
		// Revealing keys and prompts.
		revealVerb + " ~ " + keyQual + " " + keyNouns,
		revealVerb + " ~ your|its " + keyNouns + "|prompt|prompts|instructions|rules|guidelines|configuration|config|directives|owner",
		revealVerb + " ~ system|initial|hidden|internal|secret prompt*|instruction*|configuration|config",
		"api|apikey key|keys|token|tokens|secret|secrets|credential*",
		"apikey|apikeys",
		"agent key|keys|token|tokens|credential*|secret",
		"bearer token|tokens",
		"your secret|access|private|auth|session key|keys|token|tokens|credential*",
		"your credential*|secrets",
		"what|whats is|are|s? your instruction*|prompt|rules|api|system",
		// Encodings.
		"base64|b64|rot13",
		"base 64",
		"decode|decrypt|deobfuscate this|the|following|it|below|above",
		// Spanish, French, German, Italian, Portuguese, Dutch basics.
		"ignora|ignore|ignoren|ignorar|olvida|olvide|omite todas|todos? las|los|tus|sus? instrucciones|reglas|indicaciones",
		"instrucciones|reglas anteriores|previas",
		"nuevas instrucciones",
		"eres|es un|una? ia|asistente|agente|bot",
		"querido|estimado|hola asistente|agente|ia|bot",
		"agente|asistente de ia",
		"aumenta|sube|elimina|ignora tu|su|el limite|presupuesto",
		"tu|su clave|llave api|secreta",
		"ignore|ignorez|oublie|oubliez|ignorer toutes? les|tes|vos? instructions|consignes|regles",
		"instructions|consignes precedentes|anterieures",
		"tu es|etes un|une ia|assistant|agent|bot",
		"vous etes un|une ia|assistant|agent",
		"cher|chere assistant|agent|ia|robot",
		"agent|assistant ia",
		"augmente|augmentez|supprime|supprimez ta|votre|la limite|plafond",
		"ta|votre cle api|secrete",
		"cle api",
		"ignoriere|ignorieren|ignorier|vergiss|vergessen ~ anweisungen|instruktionen|regeln|vorgaben",
		"vorherigen|bisherigen anweisungen",
		"liebe|lieber|hallo ki|assistent|agent|bot",
		"du bist|sind ~ ki|assistent|sprachmodell",
		"ki agent|assistent",
		"erhohe|erhohen|entferne dein|ihr|das limit|budget",
		"api schlussel",
		"ignora|dimentica ~ istruzioni|regole",
		"istruzioni precedenti",
		"caro|cara assistente|agente|ia",
		"ignore|ignora|esqueca ~ instrucoes|regras",
		"instrucoes anteriores",
		"querido|caro|ola assistente|agente",
		"ignore|ignora|vergeet ~ instructies",
	}},
	{bitPayment, []string{
		payBrands,
		"pay pal",
		"cash app",
		"western union",
		"money gram|transfer|transfers",
		"gift|itunes|steam card|cards|voucher|vouchers",
		"google play card|cards|credit",
		"wire|bank transfer|transfers|deposit|wire",
		"direct deposit",
		"wire me|us|it|the|you",
		"pay|paying|paid|payment|payments|accept|accepts|accepted|take|takes|prefer|prefers|only in|with|by|via|through? cash|wire|crypto|bitcoin|giftcards|bank",
		"outside|off of? the|this? platform|app|site|marketplace|website|system",
		"pay|paying|send|transfer me|you|us? directly|direct|privately|personally|separately",
		"direct|private|personal|separate payment|transfer",
		"payment|money|funds directly|privately",
		"send|transfer|wire|deposit the? money|funds|payment|deposit|balance to my|this|the following? account|wallet|address",
		"wallet address|addresses",
		"crypto|bitcoin|btc|usdt|eth|ethereum wallet",
		"avoid|skip|dodge|bypass|save|cut|evade|escape ~ the|all|platform|site|app|marketplace|service|transaction|processing|their|commission fee|fees|commission",
		"no|zero|without platform|site|app|marketplace|service|processing fee|fees",
		"invoice you|me directly|separately|privately",
		"money order|orders",
		"cashier|cashiers|certified check|cheque",
		"routing number",
		"account number|details for|to transfer|payment",
		"cash only|payment|on|at|upon",
		"in cash",
		"e transfer|transfers",
		"friends and family payment|option|mode",
		"transferencia|transferencias bancaria|directa",
		"fuera de la plataforma|app|aplicacion",
		"tarjeta|tarjetas de regalo",
		"pago|pagame|pagar directo|directamente",
		"por fuera",
		"virement bancaire|direct",
		"hors de? la? plateforme|application|site",
		"carte|cartes cadeau|cadeaux",
		"uberweisung|bankuberweisung|geschenkkarte|gutscheinkarte",
		"ausserhalb der plattform|app",
		"bonifico|ricarica",
		"fuori dalla piattaforma",
		"pix",
	}},
	{bitContact, []string{
		"whatsapp|telegram|viber|wechat|kik|snapchat|discord|imessage|facetime|skype",
		"whats app|sapp",
		"signal|text|txt|call|ring|phone|email|mail|dm|pm|message|msg|ping|hit|reach|contact|find|add|follow|snap|sms|wa me|us ~ on|at|via|through|using ~ " + contactWay,
		"text|txt|call|ring|phone|email|dm|pm|sms|snap|whatsapp|telegram me|us",
		"e mail me|us",
		"my|our phone|cell|mobile|whatsapp|telegram|personal|contact number|numbers|no|info|details|handle",
		"my|our number|email|gmail|handle|whatsapp|telegram|cell|ig|insta|instagram|snapchat is",
		"my|our email|e address",
		"phone|cell|mobile|whatsapp|telegram contact? number|numbers",
		"at|gmail|hotmail|yahoo|outlook|icloud|protonmail|proton|aol|gmx|mail|live ~ dot com|net|org|me|co|de|fr|es|uk",
		"gmail|hotmail|protonmail|gmx",
		"yahoo|outlook|icloud|proton com|mail|me|net|dot",
		"at gmail|hotmail|yahoo|outlook|icloud|protonmail|proton|aol|gmx",
		"instagram|insta|ig|snapchat|tiktok|twitter|facebook handle|account|profile|username|page|dm|dms|me",
		"escribeme|llamame|contactame|ecris|appelle|ruf|schreib|whatsappe moi|mich|mir",
		"mi|mon|ma|meine numero|telefono|email|correo|nummer|handy|telefon|portable",
	}},
}

// phraseIndex maps a first word to the patterns that start with it.
var phraseIndex = func() map[string][]*phrase {
	idx := map[string][]*phrase{}
	for _, group := range phraseSrc {
		for _, src := range group.pats {
			p := compile(src, group.bit)
			first := p.toks[0]
			if first.opt || first.gap || len(first.prefix) > 0 {
				// A "w*" first token indexes by its stem: only the patterns
				// below use one, and their words are whole there.
				for _, s := range first.prefix {
					first.alts = append(first.alts, s)
				}
				p.toks[0] = ptoken{alts: first.alts}
			}
			pp := p
			for _, w := range first.alts {
				idx[w] = append(idx[w], &pp)
			}
		}
	}
	return idx
}()
