package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"regexp"
	"strings"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/market"
	"marketplace/internal/ratelimit"
)

// The chat link (CONTRACT.md section 17): the marketplace's chat bot hands
// a person a one-time code bound to their chat account; signed in here, the
// person verifies the code, and the chat account is linked to their user.

// Codes are DiscordCodeLen characters of an alphabet without look-alikes
// (no 0/O, 1/I/L): 31^8, about 2^39.6, values. They are single use, live
// DiscordCodeTTL on real time (a security token: the sandbox clock never
// ages it, CONTRACT.md section 10) and are stored only as their SHA-256,
// in the database, so every replica sees them.
const (
	DiscordCodeLen      = 8
	DiscordCodeTTL      = 15 * time.Minute
	discordCodeAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
)

// FlagDiscord names the chat bot's route in FEATURE_DISABLED when no bot
// secret is configured.
const FlagDiscord = "discord"

// discordVerifyPerUser bounds the codes one user may try: guessing a live
// code among 2^39.6 takes far more than this allows.
var discordVerifyPerUser = ratelimit.Limit{Max: 10, Window: 15 * time.Minute}

// DiscordLink is the chat account linked to a user.
type DiscordLink struct {
	DiscordUserID   string
	DiscordUsername string
	LinkedAt        time.Time
}

// DiscordAccount is a chat account as the bot names it.
type DiscordAccount struct {
	UserID   string
	Username string
}

// DiscordCode is a stored code: its hash and the chat account it is for.
type DiscordCode struct {
	Hash            string
	DiscordUserID   string
	DiscordUsername string
	ExpiresAt       time.Time
	UsedAt          *time.Time
	CreatedAt       time.Time
}

// IssuedDiscordCode is a new code, shown once to the bot.
type IssuedDiscordCode struct {
	Code      string
	ExpiresAt time.Time
}

// ChatLinks issues and verifies chat-link codes.
type ChatLinks struct {
	store    Store
	clock    market.Clock // linkedAt
	realTime market.Clock // code expiry and the verify throttle
	limiter  ratelimit.Limiter
	// botSecret is the SHA-256 of MARKETPLACE_DISCORD_BOT_SECRET; hasBot
	// is false without one.
	botSecret [sha256.Size]byte
	hasBot    bool
}

// NewChatLinks builds the chat-link service; botSecret "" leaves the bot's
// code route switched off (the sandbox route still issues codes).
func NewChatLinks(store Store, clock, realTime market.Clock, limiter ratelimit.Limiter, botSecret string) *ChatLinks {
	c := &ChatLinks{store: store, clock: clock, realTime: realTime, limiter: limiter}
	if botSecret != "" {
		c.botSecret, c.hasBot = sha256.Sum256([]byte(botSecret)), true
	}
	return c
}

// AuthenticateBot checks the secret the chat bot presented:
// FEATURE_DISABLED (details {flag: "discord"}) when none is configured,
// UNAUTHORIZED when it is missing or wrong. The comparison takes the same
// time whatever the secret's length or content (both sides are hashed
// first).
func (c *ChatLinks) AuthenticateBot(presented string) error {
	if !c.hasBot {
		return market.Errorf(market.CodeFeatureDisabled, "the chat bot is not configured on this service").
			WithDetails(map[string]any{"flag": FlagDiscord})
	}
	got := sha256.Sum256([]byte(presented))
	if presented == "" || subtle.ConstantTimeCompare(got[:], c.botSecret[:]) != 1 {
		return market.Errorf(market.CodeUnauthorized, "the chat bot's secret is missing or wrong")
	}
	return nil
}

var discordIDPattern = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,64}$`)

// IssueCode makes a code for a chat account. The account's earlier codes
// stop working, so at most one is live per chat account; codes expired
// before now are swept on the way.
func (c *ChatLinks) IssueCode(ctx context.Context, acct DiscordAccount) (IssuedDiscordCode, error) {
	var ch market.Check
	ch.Require(discordIDPattern.MatchString(acct.UserID), "discord_user_id",
		"must be the chat platform's user id: 1 to 64 characters of A-Z, a-z, 0-9, _ . : -")
	acct.Username = ch.Text("discord_username", acct.Username, 100, true)
	if err := ch.Err(); err != nil {
		return IssuedDiscordCode{}, err
	}
	code := newDiscordCode()
	now := c.realTime.Now()
	row := &DiscordCode{Hash: hashDiscordCode(code), DiscordUserID: acct.UserID, DiscordUsername: acct.Username,
		ExpiresAt: now.Add(DiscordCodeTTL).Truncate(time.Second), CreatedAt: now}
	err := c.store.InTx(ctx, func(tx Tx) error {
		if err := tx.DeleteDiscordCodes(ctx, acct.UserID, now); err != nil {
			return err
		}
		return tx.CreateDiscordCode(ctx, row)
	})
	if err != nil {
		return IssuedDiscordCode{}, err
	}
	return IssuedDiscordCode{Code: code, ExpiresAt: row.ExpiresAt}, nil
}

// Verify links the chat account of code to the caller. A code that is
// malformed, unknown, used or expired is VALIDATION_ERROR on "code" and
// stays as it was; one for a chat account another user holds is
// INVALID_STATE. A caller linked to another chat account moves to this one;
// verifying the caller's own chat account again refreshes its name. Tries
// are throttled per user (RATE_LIMITED).
func (c *ChatLinks) Verify(ctx context.Context, actor market.Actor, code string) (*DiscordLink, error) {
	norm, ok := normalizeDiscordCode(code)
	if !ok {
		return nil, badDiscordCode("must be the 8-character code the chat bot gave you")
	}
	if err := throttleAttempts(ctx, c.limiter, "discord:verify:"+actor.UserID, discordVerifyPerUser,
		"too many chat-link codes tried; try again later"); err != nil {
		return nil, err
	}
	hash := hashDiscordCode(norm)
	var link *DiscordLink
	err := c.store.InTx(ctx, func(tx Tx) error {
		row, err := tx.DiscordCodeByHash(ctx, hash)
		if market.CodeOf(err) == market.CodeNotFound {
			return badDiscordCode("is not a code the chat bot gave; ask it for a new one")
		}
		if err != nil {
			return err
		}
		realNow := c.realTime.Now()
		if row.UsedAt != nil {
			return badDiscordCode("was already used; ask the chat bot for a new one")
		}
		if !realNow.Before(row.ExpiresAt) {
			return badDiscordCode("has expired; ask the chat bot for a new one")
		}
		holder, err := tx.UserByDiscordID(ctx, row.DiscordUserID)
		switch {
		case err == nil && holder.ID != actor.UserID:
			return discordTaken()
		case err != nil && market.CodeOf(err) != market.CodeNotFound:
			return err
		}
		if used, err := tx.UseDiscordCode(ctx, hash, realNow); err != nil {
			return err
		} else if !used {
			return badDiscordCode("was already used; ask the chat bot for a new one")
		}
		now := c.clock.Now().Truncate(time.Microsecond)
		link = &DiscordLink{DiscordUserID: row.DiscordUserID, DiscordUsername: row.DiscordUsername, LinkedAt: now}
		if err := tx.SetDiscordLink(ctx, actor.UserID, link, now); err != nil {
			return err
		}
		return events.Record(ctx, tx, now, actor, "user.discord_linked", "user", actor.UserID,
			map[string]any{"discord_user_id": link.DiscordUserID})
	})
	if err != nil {
		return nil, err
	}
	return link, nil
}

// Unlink removes the caller's chat link; with none it changes nothing and
// succeeds all the same.
func (c *ChatLinks) Unlink(ctx context.Context, actor market.Actor) (*User, error) {
	var u *User
	err := c.store.InTx(ctx, func(tx Tx) error {
		var err error
		if u, err = tx.UserByID(ctx, actor.UserID); err != nil {
			return err
		}
		if u.Discord == nil {
			return nil
		}
		now := c.clock.Now()
		if err := tx.SetDiscordLink(ctx, u.ID, nil, now); err != nil {
			return err
		}
		was := u.Discord.DiscordUserID
		u.Discord, u.UpdatedAt = nil, now
		return events.Record(ctx, tx, now, actor, "user.discord_unlinked", "user", u.ID,
			map[string]any{"discord_user_id": was})
	})
	return u, err
}

// newDiscordCode draws a code uniformly from the alphabet: a random byte is
// kept only below the largest multiple of its size, so no letter is likelier
// than another.
func newDiscordCode() string {
	const n = len(discordCodeAlphabet)
	const limit = 256 - 256%n
	out := make([]byte, 0, DiscordCodeLen)
	var buf [16]byte
	for len(out) < DiscordCodeLen {
		_, _ = rand.Read(buf[:])
		for _, b := range buf {
			if int(b) < limit && len(out) < DiscordCodeLen {
				out = append(out, discordCodeAlphabet[int(b)%n])
			}
		}
	}
	return string(out)
}

// normalizeDiscordCode reads a code as a person may type it: any case,
// with spaces or hyphens between groups.
func normalizeDiscordCode(s string) (string, bool) {
	s = strings.ToUpper(strings.NewReplacer(" ", "", "-", "").Replace(strings.TrimSpace(s)))
	if len(s) != DiscordCodeLen {
		return "", false
	}
	for _, r := range s {
		if !strings.ContainsRune(discordCodeAlphabet, r) {
			return "", false
		}
	}
	return s, true
}

func hashDiscordCode(code string) string {
	sum := sha256.Sum256([]byte("marketplace discord code:" + code))
	return hex.EncodeToString(sum[:])
}

func badDiscordCode(msg string) error {
	return market.Invalid(market.FieldError{Field: "code", Message: msg})
}

func discordTaken() error {
	return market.Errorf(market.CodeInvalidState, "this chat account is linked to another user")
}
