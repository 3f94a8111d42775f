package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/market"
)

// The event log (events.Tx): appended by every area, read back per entity
// (EventsFor, which orders.Tx names for an order's timeline) and per
// recipient (Feed).
var (
	_ events.Tx      = (*Tx)(nil)
	_ events.PrefsTx = (*Tx)(nil)
)

// EventSink is told of each public event inside the transaction that
// records it, after its feed rows are written; an error rolls the
// transaction back.
type EventSink func(ctx context.Context, tx *Tx, e *events.Event) error

// eventHooks are the sinks and commit hooks, replaced whole on each change
// (copy on write), so transactions read them without a lock.
type eventHooks struct {
	names     []string // sinks in the order they were first set
	sinks     map[string]EventSink
	allNames  []string // the same for sinks of every event (OnAnyEvent)
	all       map[string]EventSink
	committed map[string]func(userIDs []string)
}

func (db *DB) changeHooks(change func(h *eventHooks)) {
	for {
		old := db.hooks.Load()
		h := &eventHooks{sinks: map[string]EventSink{}, all: map[string]EventSink{}, committed: map[string]func([]string){}}
		if old != nil {
			h.names, h.allNames = slices.Clone(old.names), slices.Clone(old.allNames)
			maps.Copy(h.sinks, old.sinks)
			maps.Copy(h.all, old.all)
			maps.Copy(h.committed, old.committed)
		}
		change(h)
		if db.hooks.CompareAndSwap(old, h) {
			return
		}
	}
}

// OnEvent sets the sink called name; sinks run in the order they were first
// set. Setting a name again replaces its sink, so a service assembled twice
// on one store (tests, a restart in process) never notifies twice.
func (db *DB) OnEvent(name string, s EventSink) {
	db.changeHooks(func(h *eventHooks) {
		if _, ok := h.sinks[name]; !ok {
			h.names = append(h.names, name)
		}
		h.sinks[name] = s
	})
}

// OnAnyEvent sets the sink called name that is told of every event, the
// log's internal types too, inside the transaction that records it (before
// the feed rows of a public one); an error rolls the transaction back. Like
// OnEvent, setting a name again replaces its sink.
func (db *DB) OnAnyEvent(name string, s EventSink) {
	db.changeHooks(func(h *eventHooks) {
		if _, ok := h.all[name]; !ok {
			h.allNames = append(h.allNames, name)
		}
		h.all[name] = s
	})
}

// OnCommit sets the function called name that is told, after each commit
// that recorded public events, which users received them (so feed readers
// waiting for them wake at once). It runs on the committing goroutine: it
// must not block. Setting a name again replaces it.
func (db *DB) OnCommit(name string, f func(userIDs []string)) {
	db.changeHooks(func(h *eventHooks) { h.committed[name] = f })
}

// AppendEvent writes an event; the log is append-only, so there is no update.
// A public event gets one feed row per recipient, then goes to the sinks.
func (tx *Tx) AppendEvent(ctx context.Context, e *events.Event) error {
	data, err := json.Marshal(e.Data)
	if err != nil {
		return market.Internal(err)
	}
	_, err = tx.exec(ctx, `INSERT INTO events (id, type, actor_type, actor_id, entity_type, entity_id, data, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		e.ID, e.Type, string(e.ActorType), e.ActorID, e.EntityType, e.EntityID, string(data), e.CreatedAt)
	if err != nil {
		return wrap(err)
	}
	h := tx.db.hooks.Load()
	if h != nil {
		for _, name := range h.allNames {
			if err := h.all[name](ctx, tx, e); err != nil {
				return err
			}
		}
	}
	if len(e.Recipients) == 0 {
		return nil
	}
	for _, u := range e.Recipients {
		if _, err := tx.exec(ctx, `INSERT INTO event_feed (user_id, event_id, type, created_at) VALUES (?, ?, ?, ?)`,
			u, e.ID, e.Type, e.CreatedAt); err != nil {
			return wrap(err)
		}
	}
	if h == nil {
		return nil
	}
	for _, name := range h.names {
		if err := h.sinks[name](ctx, tx, e); err != nil {
			return err
		}
	}
	if len(h.committed) > 0 {
		to := e.Recipients
		tx.afterCommit = append(tx.afterCommit, func() {
			for _, f := range h.committed {
				f(to)
			}
		})
	}
	return nil
}

// EventsFor lists the events of one entity, oldest first.
func (tx *Tx) EventsFor(ctx context.Context, entityType, entityID string) ([]events.Event, error) {
	return queryAll(ctx, tx, scanEvent, `SELECT `+eventColumns+` FROM events
		WHERE entity_type = ? AND entity_id = ? ORDER BY created_at, id`, entityType, entityID)
}

// EventByID reads one event.
func (tx *Tx) EventByID(ctx context.Context, id string) (*events.Event, error) {
	es, err := queryAll(ctx, tx, scanEvent, `SELECT `+eventColumns+` FROM events WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(es) == 0 {
		return nil, market.NotFound("event")
	}
	return &es[0], nil
}

const eventColumns = `id, type, actor_type, actor_id, entity_type, entity_id, data, created_at`

func scanEvent(row scanner) (*events.Event, error) {
	var e events.Event
	var actorType, data string
	if err := row.Scan(&e.ID, &e.Type, &actorType, &e.ActorID, &e.EntityType, &e.EntityID, &data, &e.CreatedAt); err != nil {
		return nil, wrap(err)
	}
	e.ActorType = market.ActorType(actorType)
	if err := json.Unmarshal([]byte(data), &e.Data); err != nil {
		return nil, market.Internal(err)
	}
	e.CreatedAt = e.CreatedAt.UTC()
	return &e, nil
}

// Feed reads a page of one user's feed (events.FeedStore). It runs in one
// read-only snapshot, so the page and the head cursor of an empty first
// page agree.
//
// On PostgreSQL rows are read in (txid, seq) order and only those written
// by transactions older than every transaction still running: a
// transaction that commits after this read has a txid at or above that
// bound, so its rows sort after any cursor this read hands out. SQLite has
// one writer, so txid is 0 and seq order is commit order.
//
// On SQLite the statements run one by one on the read pool (cached
// statements): a read transaction there would hold a pooled connection
// while each statement took another, and enough concurrent reads (a
// crowd of long polls starting together) would hold every connection
// and wait for ever.
func (db *DB) Feed(ctx context.Context, q events.FeedQuery) ([]events.FeedEntry, events.Cursor, error) {
	tx := db.Read()
	// The head of the feed, for an empty first page, is read before the
	// page: on SQLite the statements are not one snapshot, and a head read
	// after the page could pass an event committed in between.
	var head events.Cursor
	var bound int64
	if db.dialect == Postgres {
		sqlTx, b, err := db.pgFeedSnapshot(ctx)
		if err != nil {
			return nil, events.Cursor{}, err
		}
		defer sqlTx.Rollback() //nolint:errcheck // read-only
		tx = &Tx{db: db, ex: sqlTx}
		bound = b
		head = events.Cursor{TxID: bound - 1, Seq: math.MaxInt64}
	} else if q.After == nil {
		if err := tx.queryRow(ctx, `SELECT COALESCE(MAX(seq), 0) FROM event_feed`).Scan(&head.Seq); err != nil {
			return nil, events.Cursor{}, wrap(fmt.Errorf("feed head: %w", err))
		}
	}

	where := []string{"f.user_id = ?"}
	args := []any{q.UserID}
	if q.After != nil {
		where = append(where, "(f.txid > ? OR (f.txid = ? AND f.seq > ?))")
		args = append(args, q.After.TxID, q.After.TxID, q.After.Seq)
	} else {
		where = append(where, "f.created_at >= ?")
		args = append(args, q.Since)
	}
	if len(q.Types) > 0 {
		in, list := tx.inList("f.type", q.Types)
		where = append(where, in)
		args = append(args, list)
	}
	if db.dialect == Postgres {
		where = append(where, "f.txid < ?")
		args = append(args, bound)
	}
	args = append(args, q.Limit)
	rows, err := tx.query(ctx, `SELECT f.txid, f.seq, e.id, e.type, e.actor_type, e.actor_id, e.entity_type, e.entity_id, e.data, e.created_at
		FROM event_feed f JOIN events e ON e.id = f.event_id
		WHERE `+strings.Join(where, " AND ")+` ORDER BY f.txid, f.seq LIMIT ?`, args...)
	if err != nil {
		return nil, events.Cursor{}, wrap(err)
	}
	var out []events.FeedEntry
	for rows.Next() {
		var fe events.FeedEntry
		var actorType, data string
		e := &fe.Event
		if err := rows.Scan(&fe.Cursor.TxID, &fe.Cursor.Seq, &e.ID, &e.Type, &actorType, &e.ActorID, &e.EntityType,
			&e.EntityID, &data, &e.CreatedAt); err != nil {
			rows.Close()
			return nil, events.Cursor{}, wrap(err)
		}
		e.ActorType = market.ActorType(actorType)
		if err := json.Unmarshal([]byte(data), &e.Data); err != nil {
			rows.Close()
			return nil, events.Cursor{}, market.Internal(err)
		}
		e.CreatedAt = e.CreatedAt.UTC()
		out = append(out, fe)
	}
	if err := rows.Err(); err != nil {
		return nil, events.Cursor{}, wrap(err)
	}
	rows.Close()
	switch {
	case len(out) > 0:
		return out, out[len(out)-1].Cursor, nil
	case q.After != nil:
		return nil, *q.After, nil
	}
	// An empty first page: the head, after everything visible when the
	// page was read.
	return nil, head, nil
}

// pgXmin bounds what a read of the feed may hand out: every feed row with
// a txid below it that will ever be visible is visible in the snapshot now.
// It is the snapshot's xmin (the oldest transaction still running) with
// the transactions of other databases on the same server left out: xids
// are the server's, so a long transaction in another database (a bulk load,
// another test's store) would otherwise hold this feed back until it ended,
// though it can never write a row here. A running xid is left out only when
// pg_stat_activity, read after the snapshot was taken, shows it running in
// another database; one that ended in between, or that the view does not
// show (a prepared transaction), still bounds the read. The bound never
// passes the snapshot's xmax, which every transaction not yet finished is
// at or above.
const pgXmin = `(SELECT LEAST(pg_snapshot_xmax(pg_current_snapshot())::text::bigint, MIN(x::text::bigint))
	FROM pg_snapshot_xip(pg_current_snapshot()) AS x
	WHERE NOT EXISTS (SELECT 1 FROM pg_stat_activity a
		WHERE a.backend_xid::text::bigint = x::text::bigint % 4294967296
			AND a.datid <> (SELECT oid FROM pg_database WHERE datname = current_database())))`

// pgFeedSnapshot begins the read-only snapshot a feed read runs in and
// reads its bound (pgXmin). A bound held by an xid no backend shows is
// most likely a transaction of another database that ended between the
// snapshot and the look at pg_stat_activity: it cannot be placed, so it
// bounds this read though it never wrote here, and a long poll whose first
// read it cut short would wait for a wake that never comes (the poller
// has already passed the entry). So the snapshot is taken again, a few
// times; a bound that stays held (a prepared transaction) is kept.
func (db *DB) pgFeedSnapshot(ctx context.Context) (*sql.Tx, int64, error) {
	const attempts = 4
	for i := 1; ; i++ {
		sqlTx, err := db.read.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
		if err != nil {
			return nil, 0, wrap(err)
		}
		if db.feedBegan != nil {
			db.feedBegan(ctx, sqlTx)
		}
		var bound int64
		var unplaced bool
		err = sqlTx.QueryRowContext(ctx, `SELECT b.x, EXISTS (SELECT 1 FROM pg_snapshot_xip(pg_current_snapshot()) AS v
			WHERE v::text::bigint = b.x AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a
				WHERE a.backend_xid::text::bigint = b.x % 4294967296))
			FROM (SELECT `+pgXmin+` AS x) b`).Scan(&bound, &unplaced)
		if err == nil && (!unplaced || i == attempts) {
			return sqlTx, bound, nil
		}
		_ = sqlTx.Rollback()
		if err != nil {
			return nil, 0, wrap(fmt.Errorf("feed bound: %w", err))
		}
	}
}

// FeedChanges reads the head of the feed and which of users have rows
// after since up to it (events.FeedStore), in one statement, so one
// snapshot: the feed poller's tick. Each user costs one probe of the
// (user_id, txid, seq) index, which stops at the first row found.
//
// The head is the one an empty first page hands out: on PostgreSQL
// (xmin - 1, max), after every row readable now; on SQLite (0, the
// highest seq).
func (db *DB) FeedChanges(ctx context.Context, since events.Cursor, users []string) (events.Cursor, []string, error) {
	tx := db.Read()
	var head events.Cursor
	if len(users) == 0 {
		var err error
		if db.dialect == Postgres {
			err = tx.queryRow(ctx, `SELECT `+pgXmin+` - 1`).Scan(&head.TxID)
			head.Seq = math.MaxInt64
		} else {
			err = tx.queryRow(ctx, `SELECT COALESCE(MAX(seq), 0) FROM event_feed`).Scan(&head.Seq)
		}
		if err != nil {
			return events.Cursor{}, nil, wrap(fmt.Errorf("feed head: %w", err))
		}
		return head, nil, nil
	}
	var q string
	var args []any
	if db.dialect == Postgres {
		// Rows after since: txid > since.TxID (since is a head, whose seq
		// is the maximum); up to the head: txid < xmin.
		q = `SELECT s.x - 1, u.id FROM (SELECT ` + pgXmin + ` AS x) s
			LEFT JOIN LATERAL (SELECT t.id FROM unnest(?::text[]) AS t(id) WHERE EXISTS (
				SELECT 1 FROM event_feed f WHERE f.user_id = t.id AND f.txid > ? AND f.txid < s.x)) u ON true`
		args = []any{users, since.TxID}
	} else {
		b, _ := json.Marshal(users) // []string always marshals
		q = `SELECT s.x, j.value FROM (SELECT COALESCE(MAX(seq), 0) AS x FROM event_feed) s
			LEFT JOIN json_each(?) j ON EXISTS (
				SELECT 1 FROM event_feed f WHERE f.user_id = j.value AND f.txid = 0 AND f.seq > ? AND f.seq <= s.x)`
		args = []any{string(b), since.Seq}
	}
	rows, err := tx.query(ctx, q, args...)
	if err != nil {
		return events.Cursor{}, nil, wrap(err)
	}
	defer rows.Close()
	var changed []string
	for rows.Next() {
		var x int64
		var u sql.NullString
		if err := rows.Scan(&x, &u); err != nil {
			return events.Cursor{}, nil, wrap(err)
		}
		if db.dialect == Postgres {
			head = events.Cursor{TxID: x, Seq: math.MaxInt64}
		} else {
			head = events.Cursor{Seq: x}
		}
		if u.Valid {
			changed = append(changed, u.String)
		}
	}
	if err := rows.Err(); err != nil {
		return events.Cursor{}, nil, wrap(err)
	}
	return head, changed, nil
}

// NotificationPrefs reads a user's preferences: every category on unless
// the user switched it off.
func (tx *Tx) NotificationPrefs(ctx context.Context, userID string) (events.Prefs, error) {
	p := events.DefaultPrefs()
	var raw string
	err := tx.queryRow(ctx, `SELECT prefs FROM notification_prefs WHERE user_id = ?`, userID).Scan(&raw)
	if err == sql.ErrNoRows {
		return p, nil
	}
	if err != nil {
		return nil, wrap(err)
	}
	var stored map[string]map[string]bool
	if err := json.Unmarshal([]byte(raw), &stored); err != nil {
		return nil, market.Internal(err)
	}
	for c, ch := range stored {
		if _, ok := p[c]; ok {
			p[c] = events.Switches{Email: ch[events.ChannelEmail], Webhook: ch[events.ChannelWebhook]}
		}
	}
	return p, nil
}

// PutNotificationPrefs stores a user's preferences whole.
func (tx *Tx) PutNotificationPrefs(ctx context.Context, userID string, p events.Prefs, at time.Time) error {
	stored := map[string]map[string]bool{}
	for c, s := range p {
		stored[c] = map[string]bool{events.ChannelEmail: s.Email, events.ChannelWebhook: s.Webhook}
	}
	raw, err := json.Marshal(stored)
	if err != nil {
		return market.Internal(err)
	}
	_, err = tx.exec(ctx, `INSERT INTO notification_prefs (user_id, prefs, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (user_id) DO UPDATE SET prefs = excluded.prefs, updated_at = excluded.updated_at`, userID, string(raw), at)
	return wrap(err)
}
