package events

import (
	"context"
	"time"
)

// The channels a preference switches: the feed always keeps everything.
const (
	ChannelEmail   = "email"
	ChannelWebhook = "webhook"
)

// Switches are one category's channels.
type Switches struct {
	Email   bool
	Webhook bool
}

// Prefs are a user's notification preferences: category -> channels. A
// category that is absent is on for both channels (the default).
type Prefs map[string]Switches

// DefaultPrefs has every category on for both channels.
func DefaultPrefs() Prefs {
	p := Prefs{}
	for _, c := range Categories {
		p[c] = Switches{Email: true, Webhook: true}
	}
	return p
}

// Allows reports whether an event of type typ goes out on channel. The
// webhook test event ignores preferences: it was asked for.
func (p Prefs) Allows(typ, channel string) bool {
	if typ == TypeTest {
		return channel == ChannelWebhook
	}
	s, ok := p[Category(typ)]
	if !ok {
		return true
	}
	if channel == ChannelEmail {
		return s.Email
	}
	return s.Webhook
}

// PrefsTx reads and writes preferences.
type PrefsTx interface {
	NotificationPrefs(ctx context.Context, userID string) (Prefs, error)
	PutNotificationPrefs(ctx context.Context, userID string, p Prefs, at time.Time) error
}
