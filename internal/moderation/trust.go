package moderation

import (
	"regexp"
	"strings"
)

// Content from others (CONTRACT section 16): text one party wrote, shown to
// another party's agent, is marked untrusted, with flags for what in it
// looks like an attempt to steer the agent. Flagged text is still
// delivered, unchanged; the flags only warn.

// Trust flags.
const (
	FlagInstructionLike    = "instruction_like"     // addresses an AI, or asks it to ignore instructions, change limits, pay elsewhere or reveal keys
	FlagOffPlatformPayment = "off_platform_payment" // asks to pay outside the platform
	FlagContactDetails     = "contact_details"      // an e-mail address, phone number or messenger handle
)

// Phrases are matched on Normalize's form: lower case, accents dropped,
// words separated by one space.
var (
	instructionPhrases = []string{
		"ignore previous instructions", "ignore all previous", "ignore your instructions", "ignore the above",
		"ignore all instructions", "ignore prior instructions", "disregard previous", "disregard your instructions",
		"disregard all", "forget your instructions", "forget previous instructions", "new instructions",
		"system prompt", "you are an ai", "as an ai", "dear ai", "ai agent", "language model", "assistant ignore",
		"reveal your key", "reveal the key", "your api key", "your agent key", "send your key", "share your key",
		"x agent key", "raise your limit", "increase your limit", "change your limit", "spending limit",
		"approval threshold", "override", "jailbreak", "developer mode",
	}
	paymentPhrases = []string{
		"paypal", "venmo", "zelle", "cash app", "cashapp", "western union", "moneygram", "wire transfer",
		"bank transfer", "bitcoin", "btc", "ethereum", "crypto", "usdt", "gift card", "pay outside",
		"outside the platform", "off platform", "pay me directly", "pay directly", "direct payment",
	}
	contactPhrases = []string{"whatsapp", "telegram", "signal me", "text me", "call me", "email me", "dm me"}

	emailPattern = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)
	phonePattern = regexp.MustCompile(`(?:\+?\d[\s().-]*){10,}`)
)

// TrustFlags lists the flags text raises, in a fixed order; none is an
// empty (non-nil) list.
func TrustFlags(text string) []string {
	n := " " + Normalize(text) + " "
	has := func(phrases []string) bool {
		for _, p := range phrases {
			if strings.Contains(n, " "+p+" ") {
				return true
			}
		}
		return false
	}
	out := []string{}
	if has(instructionPhrases) {
		out = append(out, FlagInstructionLike)
	}
	if has(paymentPhrases) {
		out = append(out, FlagOffPlatformPayment)
	}
	if has(contactPhrases) || emailPattern.MatchString(text) || phonePattern.MatchString(text) {
		out = append(out, FlagContactDetails)
	}
	return out
}
