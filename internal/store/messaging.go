package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/messaging"
)

// The messaging area (messaging.Tx): threads and their messages.
// ListingByID, which it names, is listings.go's; AppendEvent is events.go's.
var _ messaging.Tx = (*Tx)(nil)

const threadColumns = `id, listing_id, buyer_id, seller_id, buyer_unread, seller_unread, last_message_at, created_at`

const messageColumns = `id, thread_id, sender_id, message_type, content, structured_fields, sent_by_agent, buyer_read_at,
	seller_read_at, created_at`

// EnsureThread inserts t unless its buyer has a thread on its listing
// already, and answers the one there is (locked inside a transaction).
func (tx *Tx) EnsureThread(ctx context.Context, t *messaging.Thread) (*messaging.Thread, error) {
	_, err := tx.exec(ctx, `INSERT INTO threads (`+threadColumns+`) VALUES (?, ?, ?, ?, 0, 0, ?, ?)
		ON CONFLICT (listing_id, buyer_id) DO NOTHING`, t.ID, t.ListingID, t.BuyerID, t.SellerID, t.LastMessageAt, t.CreatedAt)
	if err != nil {
		return nil, wrap(err)
	}
	return tx.ThreadOf(ctx, t.ListingID, t.BuyerID)
}

// AddMessage inserts m and, in one statement on the thread row, moves its
// last activity and counts m unread for each side that did not send it.
func (tx *Tx) AddMessage(ctx context.Context, m *messaging.Message, t *messaging.Thread) error {
	fields, err := jsonOrNull(m.Fields)
	if err != nil {
		return err
	}
	if _, err := tx.exec(ctx, `INSERT INTO messages (`+messageColumns+`) VALUES (`+placeholders(10)+`)`,
		m.ID, m.ThreadID, m.SenderID, string(m.Type), m.Content, fields, m.SentByAgent, m.BuyerReadAt, m.SellerReadAt,
		m.CreatedAt); err != nil {
		return wrap(err)
	}
	buyer, seller := 0, 0
	if m.BuyerReadAt == nil {
		buyer = 1
	}
	if m.SellerReadAt == nil {
		seller = 1
	}
	res, err := tx.exec(ctx, `UPDATE threads SET buyer_unread = buyer_unread + ?, seller_unread = seller_unread + ?,
		last_message_at = CASE WHEN last_message_at < ? THEN ? ELSE last_message_at END WHERE id = ?`,
		buyer, seller, m.CreatedAt, m.CreatedAt, m.ThreadID)
	if err != nil {
		return wrap(err)
	}
	if err := affectedOne(res, "thread"); err != nil {
		return err
	}
	t.BuyerUnread += buyer
	t.SellerUnread += seller
	if at := m.CreatedAt.UTC().Truncate(time.Microsecond); at.After(t.LastMessageAt) {
		t.LastMessageAt = at
	}
	return nil
}

// ThreadByID finds a thread, locking it inside a transaction.
func (tx *Tx) ThreadByID(ctx context.Context, id string) (*messaging.Thread, error) {
	return scanThread(tx.queryRow(ctx, `SELECT `+threadColumns+` FROM threads WHERE id = ?`+tx.lockInTx(), id))
}

// ThreadOf finds the thread of buyerID on listingID, locking it inside a
// transaction.
func (tx *Tx) ThreadOf(ctx context.Context, listingID, buyerID string) (*messaging.Thread, error) {
	return scanThread(tx.queryRow(ctx, `SELECT `+threadColumns+` FROM threads WHERE listing_id = ? AND buyer_id = ?`+
		tx.lockInTx(), listingID, buyerID))
}

// Threads lists a page of a user's threads, newest activity first, with
// each listing's title and last message. The two sides are read through
// their own index and merged.
func (tx *Tx) Threads(ctx context.Context, f messaging.ThreadFilter) ([]messaging.Thread, error) {
	side := func(col, alias string) (string, []any) {
		where, args := col+` = ?`, []any{f.UserID}
		if f.ListingID != "" {
			where, args = where+` AND listing_id = ?`, append(args, f.ListingID)
		}
		if f.Before != nil {
			where += ` AND (last_message_at < ? OR (last_message_at = ? AND id < ?))`
			args = append(args, f.Before.At, f.Before.At, f.Before.ID)
		}
		return `SELECT * FROM (SELECT ` + threadColumns + ` FROM threads WHERE ` + where +
			` ORDER BY last_message_at DESC, id DESC LIMIT ?) AS ` + alias, append(args, f.Limit)
	}
	qb, ab := side("buyer_id", "b")
	qs, as := side("seller_id", "s")
	ts, err := queryAll(ctx, tx, scanThread, `SELECT `+threadColumns+` FROM (`+qb+` UNION ALL `+qs+
		`) AS mine ORDER BY last_message_at DESC, id DESC LIMIT ?`, append(append(ab, as...), f.Limit)...)
	if err != nil || len(ts) == 0 {
		return ts, err
	}
	ids := make([]string, len(ts))
	for i := range ts {
		ids[i] = ts[i].ID
	}
	cond, arg := tx.inList("t.id", ids)
	type last struct {
		threadID, title string
		m               messaging.Message
	}
	// Each thread's newest message (the id breaks a tie within the same
	// microsecond) and its listing's title.
	lasts, err := queryAll(ctx, tx, func(row scanner) (*last, error) {
		var l last
		m, err := scanMessageWith(row, &l.threadID, &l.title)
		if err != nil {
			return nil, err
		}
		l.m = *m
		return &l, nil
	}, `SELECT `+prefixed("m.", messageColumns)+`, t.id, l.title FROM threads t JOIN listings l ON l.id = t.listing_id
		LEFT JOIN messages m ON m.id = (SELECT m2.id FROM messages m2 WHERE m2.thread_id = t.id
			ORDER BY m2.created_at DESC, m2.id DESC LIMIT 1)
		WHERE `+cond, arg)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*last, len(lasts))
	for i := range lasts {
		byID[lasts[i].threadID] = &lasts[i]
	}
	for i := range ts {
		if l := byID[ts[i].ID]; l != nil {
			ts[i].ListingTitle = l.title
			if l.m.ID != "" {
				m := l.m
				ts[i].LastMessage = &m
			}
		}
	}
	return ts, nil
}

// Messages lists a thread's messages, oldest first.
func (tx *Tx) Messages(ctx context.Context, threadID string) ([]messaging.Message, error) {
	return queryAll(ctx, tx, scanMessage, `SELECT `+messageColumns+` FROM messages WHERE thread_id = ?
		ORDER BY created_at, id`, threadID)
}

// MarkRead marks the thread's unread messages read for one side and takes
// the number marked off that side's count (not a reset to zero: a message
// committed meanwhile, which this statement did not mark, stays counted).
func (tx *Tx) MarkRead(ctx context.Context, threadID string, buyer bool, at time.Time) error {
	col, count := "seller_read_at", "seller_unread"
	if buyer {
		col, count = "buyer_read_at", "buyer_unread"
	}
	res, err := tx.exec(ctx, `UPDATE messages SET `+col+` = ? WHERE thread_id = ? AND `+col+` IS NULL`, at, threadID)
	if err != nil {
		return wrap(err)
	}
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return wrap(err)
	}
	_, err = tx.exec(ctx, `UPDATE threads SET `+count+` = CASE WHEN `+count+` > ? THEN `+count+` - ? ELSE 0 END
		WHERE id = ?`, n, n, threadID)
	return wrap(err)
}

// UnreadTotal sums a user's unread counts over their threads.
func (tx *Tx) UnreadTotal(ctx context.Context, userID string) (int, error) {
	var b, s int
	err := tx.queryRow(ctx, `SELECT
		(SELECT COALESCE(SUM(buyer_unread), 0) FROM threads WHERE buyer_id = ?),
		(SELECT COALESCE(SUM(seller_unread), 0) FROM threads WHERE seller_id = ?)`, userID, userID).Scan(&b, &s)
	return b + s, wrap(err)
}

func scanThread(row scanner) (*messaging.Thread, error) {
	var t messaging.Thread
	err := row.Scan(&t.ID, &t.ListingID, &t.BuyerID, &t.SellerID, &t.BuyerUnread, &t.SellerUnread, &t.LastMessageAt,
		&t.CreatedAt)
	if err != nil {
		return nil, notFound(err, "thread")
	}
	t.LastMessageAt, t.CreatedAt = t.LastMessageAt.UTC(), t.CreatedAt.UTC()
	return &t, nil
}

func scanMessage(row scanner) (*messaging.Message, error) { return scanMessageWith(row) }

// scanMessageWith scans a message (all columns nullable, for an outer
// join) followed by extra columns.
func scanMessageWith(row scanner, extra ...any) (*messaging.Message, error) {
	var m messaging.Message
	var id, thread, sender, typ, content, fields sql.NullString
	var agent sql.NullBool
	var buyerRead, sellerRead, created sql.NullTime
	err := row.Scan(append([]any{&id, &thread, &sender, &typ, &content, &fields, &agent, &buyerRead, &sellerRead,
		&created}, extra...)...)
	if err != nil {
		return nil, notFound(err, "message")
	}
	m.ID, m.ThreadID, m.SenderID, m.Type, m.Content = id.String, thread.String, sender.String, messaging.Type(typ.String),
		content.String
	m.SentByAgent, m.BuyerReadAt, m.SellerReadAt = agent.Bool, nullTime(buyerRead), nullTime(sellerRead)
	if created.Valid {
		m.CreatedAt = created.Time.UTC()
	}
	if fields.Valid {
		if err := json.Unmarshal([]byte(fields.String), &m.Fields); err != nil {
			return nil, market.Internal(err)
		}
	}
	return &m, nil
}
