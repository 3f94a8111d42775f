package notify

import (
	"context"
	"slices"
	"sort"
	"strings"

	"marketplace/internal/events"
	"marketplace/internal/market"
)

// PrefsChange is a preference update: category -> channel -> on. What it
// leaves out keeps its value (a category, or one channel of a category).
type PrefsChange map[string]map[string]bool

// Prefs reads a user's notification preferences (all on by default).
func (s *Service) Prefs(ctx context.Context, userID string) (events.Prefs, error) {
	return s.store.Read().NotificationPrefs(ctx, userID)
}

// UpdatePrefs applies change to a user's preferences and returns them
// whole. An unknown category or channel is a VALIDATION_ERROR naming it
// (categories.<name>, categories.<category>.<channel>); nothing is saved
// unless everything is valid.
func (s *Service) UpdatePrefs(ctx context.Context, userID string, change PrefsChange) (events.Prefs, error) {
	var c market.Check
	for _, cat := range sortedKeys(change) {
		if !slices.Contains(events.Categories, cat) {
			c.Add("categories."+cat, "is not a category: "+strings.Join(events.Categories, ", "))
			continue
		}
		for _, ch := range sortedKeys(change[cat]) {
			c.Require(ch == events.ChannelEmail || ch == events.ChannelWebhook, "categories."+cat+"."+ch,
				"is not a channel: email or webhook")
		}
	}
	if err := c.Err(); err != nil {
		return nil, err
	}
	var out events.Prefs
	err := s.store.InTx(ctx, func(tx Tx) error {
		p, err := tx.NotificationPrefs(ctx, userID)
		if err != nil {
			return err
		}
		for cat, chans := range change {
			sw := p[cat]
			for ch, on := range chans {
				if ch == events.ChannelEmail {
					sw.Email = on
				} else {
					sw.Webhook = on
				}
			}
			p[cat] = sw
		}
		out = p
		return tx.PutNotificationPrefs(ctx, userID, p, s.clock.Now())
	})
	return out, err
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
