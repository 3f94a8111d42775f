package events

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Cursor is a position in a user's feed: after every entry at or before
// (TxID, Seq). Clients see it as an opaque string.
type Cursor struct {
	TxID int64
	Seq  int64
}

// String is the opaque form handed to clients.
func (c Cursor) String() string {
	return base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("f1.%d.%d", c.TxID, c.Seq)))
}

// Less reports whether c comes before d in feed order.
func (c Cursor) Less(d Cursor) bool {
	return c.TxID < d.TxID || (c.TxID == d.TxID && c.Seq < d.Seq)
}

// ParseCursor reads a cursor from its opaque form.
func ParseCursor(s string) (Cursor, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Cursor{}, false
	}
	parts := strings.Split(string(raw), ".")
	if len(parts) != 3 || parts[0] != "f1" {
		return Cursor{}, false
	}
	tx, err1 := strconv.ParseInt(parts[1], 10, 64)
	seq, err2 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil || tx < 0 || seq < 0 {
		return Cursor{}, false
	}
	return Cursor{TxID: tx, Seq: seq}, true
}

// FeedQuery asks for a page of one user's feed: the entries after After
// (or, without it, those created since Since), of Types when given.
type FeedQuery struct {
	UserID string
	After  *Cursor
	Since  time.Time
	Types  []string
	Limit  int
}

// FeedEntry is one event in a user's feed, with its position.
type FeedEntry struct {
	Cursor Cursor
	Event  Event
}

// FeedStore reads feeds.
type FeedStore interface {
	// Feed returns the page, oldest first, and the cursor to read on from:
	// the last entry's, the one asked with when the page is empty, or the
	// head of the feed for an empty first page.
	Feed(ctx context.Context, q FeedQuery) ([]FeedEntry, Cursor, error)
	// FeedChanges reads, in one snapshot, the head of the feed (the
	// position after every readable entry of every user) and which of users
	// have entries after since and up to the head; with no users it reads
	// the head alone. It is one query whatever the number of users.
	FeedChanges(ctx context.Context, since Cursor, users []string) (head Cursor, changed []string, err error)
}
