package messaging

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"marketplace/internal/market"
)

// AutoMessage is a message the service posts on its own into the buyer's
// thread on a listing: an order event (system) or an offer round (offer).
type AutoMessage struct {
	ListingID   string
	BuyerID     string
	SellerID    string
	SenderID    string // the party that acted; "" for system messages
	Type        Type   // TypeOffer or TypeSystem
	Content     string // 1..MaxContent characters
	Fields      map[string]any
	SentByAgent bool
}

// Auto posts m into the buyer's thread on the listing, creating the thread
// if there is none, inside the caller's transaction tx at now. Automatic
// messages count as unread for every participant but their sender and
// record no message.received (the order or offer event that caused them
// notifies the parties already).
func Auto(ctx context.Context, tx PostTx, now time.Time, m AutoMessage) error {
	if m.Type != TypeOffer && m.Type != TypeSystem {
		return market.Internal(errorString("automatic message of type " + string(m.Type)))
	}
	if m.ListingID == "" || m.BuyerID == "" || m.SellerID == "" || m.Content == "" {
		return market.Internal(errorString("automatic message without listing, buyer, seller or content"))
	}
	if r := []rune(m.Content); len(r) > MaxContent {
		m.Content = string(r[:MaxContent])
	}
	t, err := tx.EnsureThread(ctx, &Thread{ID: market.NewID(), ListingID: m.ListingID, BuyerID: m.BuyerID,
		SellerID: m.SellerID, LastMessageAt: now, CreatedAt: now})
	if err != nil {
		return err
	}
	sender := m.SenderID
	if sender != t.BuyerID && sender != t.SellerID {
		sender = ""
	}
	return tx.AddMessage(ctx, newMessage(t, sender, m.Type, m.Content, m.Fields, m.SentByAgent, now), t)
}

type errorString string

func (e errorString) Error() string { return string(e) }

// FormatCursor is the opaque form of a thread page's cursor.
func FormatCursor(c Cursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.At.UnixNano(), 10) + "." + c.ID))
}

// ParseCursor reads a cursor FormatCursor made; "" is the first page (nil).
func ParseCursor(s string) (*Cursor, bool) {
	if s == "" {
		return nil, true
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, false
	}
	at, id, ok := strings.Cut(string(b), ".")
	if !ok || !market.ValidID(id) {
		return nil, false
	}
	n, err := strconv.ParseInt(at, 10, 64)
	if err != nil {
		return nil, false
	}
	return &Cursor{At: time.Unix(0, n).UTC(), ID: id}, true
}
