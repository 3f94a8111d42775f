package accounts

import (
	"strings"
	"testing"

	"marketplace/internal/market"
)

// Codes use every letter of the alphabet and nothing else.
func TestNewDiscordCode(t *testing.T) {
	seen := map[rune]int{}
	codes := map[string]bool{}
	for range 2000 {
		c := newDiscordCode()
		if len(c) != DiscordCodeLen {
			t.Fatalf("code %q is not %d long", c, DiscordCodeLen)
		}
		if n, ok := normalizeDiscordCode(c); !ok || n != c {
			t.Fatalf("a fresh code %q does not read back", c)
		}
		codes[c] = true
		for _, r := range c {
			seen[r]++
		}
	}
	if len(seen) != len(discordCodeAlphabet) || len(codes) < 1999 {
		t.Fatalf("%d letters seen, %d distinct codes", len(seen), len(codes))
	}
	for r, n := range seen {
		if !strings.ContainsRune(discordCodeAlphabet, r) || n < 300 { // 16000/31 = 516 expected
			t.Fatalf("letter %q seen %d times", r, n)
		}
	}
}

func TestNormalizeDiscordCode(t *testing.T) {
	for in, want := range map[string]string{
		"ABCD2345": "ABCD2345", "abcd2345": "ABCD2345", " abcd-2345 ": "ABCD2345", "ab cd 23 45": "ABCD2345",
		"": "", "ABCD234": "", "ABCD23456": "", "ABCD2340": "", "ABCDIL23": "", "ABCD234é": "",
	} {
		got, ok := normalizeDiscordCode(in)
		if got != want || ok != (want != "") {
			t.Errorf("normalize(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
}

func TestAuthenticateBot(t *testing.T) {
	off := NewChatLinks(nil, nil, nil, nil, "")
	if err := off.AuthenticateBot("anything"); market.CodeOf(err) != market.CodeFeatureDisabled ||
		market.ErrorOf(err).Details["flag"] != FlagDiscord {
		t.Fatalf("no secret configured: %v", err)
	}
	on := NewChatLinks(nil, nil, nil, nil, "the-bot-secret-0123")
	for _, bad := range []string{"", "the-bot-secret-012", "the-bot-secret-01234", "THE-BOT-SECRET-0123"} {
		if err := on.AuthenticateBot(bad); market.CodeOf(err) != market.CodeUnauthorized {
			t.Fatalf("secret %q: %v", bad, err)
		}
	}
	if err := on.AuthenticateBot("the-bot-secret-0123"); err != nil {
		t.Fatal(err)
	}
}
