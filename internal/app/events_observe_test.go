package app_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/store"
	"marketplace/internal/testkit"
)

// An eventObserver is one way a user hears of events: the feed today; the
// webhook receiver (and the e-mail outbox) can be added to eventObservers
// and TestEventCauses checks every cause through each of them.
type eventObserver struct {
	name string
	// sync observers see an event as soon as the request that caused it
	// has answered (it was written in the transaction of the change);
	// others (webhooks) are polled until the expected events arrive.
	sync bool
	// attach, when set, is called for every user of the test as soon as
	// it exists, before anything happens to it (to register a webhook).
	attach func(t *testing.T, s *testkit.Server, u *testkit.User)
	// seen is every event the user received so far, oldest first.
	seen func(t *testing.T, s *testkit.Server, u *testkit.User) []events.Event
}

// eventObservers: the feed rows as committed (read straight from the
// table, so a step proves the event was written with the change), and the
// feed as readers page it (on PostgreSQL it shows a commit once every
// older transaction of the server has ended, so it is polled).
var eventObservers = []eventObserver{
	{name: "committed", sync: true, seen: committedSeen},
	{name: "feed", seen: feedSeen},
}

// committedSeen reads the user's feed rows straight from the tables.
func committedSeen(t *testing.T, s *testkit.Server, u *testkit.User) []events.Event {
	t.Helper()
	q := `SELECT e.id, e.type, e.actor_id, e.entity_type, e.entity_id, e.data FROM event_feed f
		JOIN events e ON e.id = f.event_id WHERE f.user_id = $1 ORDER BY f.seq`
	if s.App.DB.Dialect() == store.SQLite {
		q = strings.ReplaceAll(q, "$1", "?1")
	}
	rows, err := s.App.DB.WritePool().QueryContext(t.Context(), q, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []events.Event
	for rows.Next() {
		var e events.Event
		var data string
		if err := rows.Scan(&e.ID, &e.Type, &e.ActorID, &e.EntityType, &e.EntityID, &data); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(data), &e.Data); err != nil {
			t.Fatal(err)
		}
		e.Data = events.Spell(e.Data, false) // as the webhook observer gets it: Variant A's names
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// feedSeen reads the user's whole feed from the store, page by page.
func feedSeen(t *testing.T, s *testkit.Server, u *testkit.User) []events.Event {
	t.Helper()
	var out []events.Event
	q := events.FeedQuery{UserID: u.ID, Since: time.Unix(0, 0), Limit: 100}
	for range 100 {
		page, cur, err := s.App.DB.Feed(t.Context(), q)
		if err != nil {
			t.Fatalf("feed of %s: %v", u.Username, err)
		}
		for _, fe := range page {
			fe.Event.Data = events.Spell(fe.Event.Data, false) // Variant A's names, as above
			out = append(out, fe.Event)
		}
		if len(page) < q.Limit {
			return out
		}
		q.After = &cur
	}
	t.Fatalf("feed of %s: more than 100 pages", u.Username)
	return nil
}
