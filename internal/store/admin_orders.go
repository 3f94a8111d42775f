package store

import (
	"context"
	"strings"
	"sync/atomic"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// AdminOrders lists orders for the admin order list, newest first. Each
// filter has an index on both engines: status orders_status_created, buyerId
// orders_buyer, sellerId orders_seller, no filter orders_created; search
// is an id (an OR of the primary key, the order id, and orders_listing,
// the listing id) or else a title substring of 3 characters or more (the
// trigram index orders_title_fts on SQLite, orders_title_trgm on
// PostgreSQL). The total is bounded as CountBound says.
func (tx *Tx) AdminOrders(ctx context.Context, f orders.AdminOrderFilter) ([]orders.Order, int, error) {
	var conds []string
	var args []any
	if f.Status != "" {
		conds, args = append(conds, "status = ?"), append(args, string(f.Status))
	}
	if f.BuyerID != "" {
		conds, args = append(conds, "buyer_id = ?"), append(args, f.BuyerID)
	}
	if f.SellerID != "" {
		conds, args = append(conds, "seller_id = ?"), append(args, f.SellerID)
	}
	if s := f.Search; s != "" {
		var ors []string
		if market.ValidID(s) {
			ors, args = append(ors, "id = ?", "listing_id = ?"), append(args, s, s)
		}
		// An id-shaped search is an id: no title holds one, and on
		// PostgreSQL the OR with a LIKE made the planner walk the orders
		// newest first instead of reading two index entries.
		if orders.TitleSearch(s) {
			return tx.ordersByTitle(ctx, conds, args, s, f)
		}
		if len(ors) == 0 {
			return []orders.Order{}, 0, nil
		}
		conds = append(conds, "("+strings.Join(ors, " OR ")+")")
	}
	if tx.db.dialect == Postgres && len(conds) == 1 && f.Status != "" {
		return tx.ordersByStatus(ctx, f)
	}
	where := ""
	if len(conds) > 0 {
		where = " WHERE " + strings.Join(conds, " AND ")
	}
	total, err := tx.adminTotal(ctx, "orders", where, args, f.Offset)
	if err != nil {
		return nil, 0, err
	}
	out, err := tx.orderRows(ctx, `SELECT `+orderColumns+` FROM orders`+where+
		` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	return out, total, err
}

// ordersByStatus is AdminOrders for a status alone on PostgreSQL. With
// "status = $1 ORDER BY created_at DESC, id DESC" the planner walked
// orders_created newest first and checked each row's status, expecting the
// status's rows spread evenly: for one whose rows are all old (or absent
// from the newest) it read 600,000 rows, 600 ms at a million orders; the
// bounded count's sequential scan can do the same from the other end. A
// range in place of the equality leaves status a sort key of its own, so
// only an index that starts with status gives the order (orders_status_created
// for the page, any status index for the count): same rows, same order.
func (tx *Tx) ordersByStatus(ctx context.Context, f orders.AdminOrderFilter) ([]orders.Order, int, error) {
	status := string(f.Status)
	var total int
	err := tx.queryRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM orders WHERE status >= ? AND status <= ?
		ORDER BY status LIMIT ?) bounded`, status, status, max(f.Offset, 0)+CountBound+1).Scan(&total)
	if err != nil {
		return nil, 0, wrap(err)
	}
	out, err := tx.orderRows(ctx, `SELECT `+orderColumns+` FROM orders WHERE status >= ? AND status <= ?
		ORDER BY status DESC, created_at DESC, id DESC LIMIT ? OFFSET ?`, status, status, f.Limit, f.Offset)
	return out, total, err
}

// ordersByTitle is AdminOrders for a title search (conds and args are the
// other filters). Gathering every match of a common term to sort it is
// what costs (the 10,000 orders titled "lamp" at a million orders: over a
// second on SQLite, 180 ms on PostgreSQL), and so does counting them: their
// rows are spread over the whole table. So the page is first looked for
// among the newest titleWalk orders of the filter (walkTitles); the total
// then counts up to orders.TitleCountBound matches past the offset off the
// trigram index (orders_title_fts, orders_title_trgm). A term too rare for
// that walk is gathered off the index, up to market.CountBound matches
// past the offset; one with more is walked to the end of its page (a term
// in one order of a thousand fills a page of 20 in 20,000 orders).
func (tx *Tx) ordersByTitle(ctx context.Context, conds []string, args []any, s string, f orders.AdminOrderFilter) ([]orders.Order, int, error) {
	and := ""
	if len(conds) > 0 {
		and = " AND " + strings.Join(conds, " AND ")
	}
	offset := max(f.Offset, 0)
	bound := offset + orders.TitleCountBound
	like := "%" + likeEscaper.Replace(strings.ToLower(s)) + "%"
	match := any(like)
	from := `FROM orders WHERE lower(listing_title) LIKE ? ESCAPE '\'` + and
	// The matches' ids, newest first, of the first n off the index. (As a
	// FROM subquery, SQLite flattened it and sorted every match.)
	matches := `SELECT id FROM (SELECT id, created_at ` + from + ` LIMIT ?) m ORDER BY created_at DESC, id DESC`
	if tx.db.dialect == SQLite {
		match = ftsQuote(s)
		from = `FROM orders_title_fts JOIN orders ON orders.id = orders_title_fts.order_id WHERE orders_title_fts MATCH ?` + and
		matches = `SELECT id FROM orders WHERE id IN (SELECT orders.id ` + from + ` LIMIT ?) ORDER BY created_at DESC, id DESC`
	}
	matchArgs := func(n int) []any { return append(append([]any{match}, args...), n) }

	out, err := tx.walkTitles(ctx, conds, args, like, f, titleWalk.Load())
	if err != nil {
		return nil, 0, err
	}
	if len(out) == f.Limit {
		var total int
		err := tx.queryRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 `+from+` LIMIT ?) bounded`, matchArgs(bound+1)...).Scan(&total)
		return out, total, wrap(err)
	}
	more := offset + market.CountBound
	ids, err := queryAll(ctx, tx, scanOne[string], matches, matchArgs(more+1)...)
	if err != nil {
		return nil, 0, err
	}
	total := min(len(ids), bound+1)
	if len(ids) <= more {
		out, err := tx.ordersByIDs(ctx, ids[min(offset, len(ids)):min(offset+f.Limit, len(ids))])
		return out, total, err
	}
	out, err = tx.walkTitles(ctx, conds, args, like, f, 0)
	return out, total, err
}

// ordersByIDs is the orders of ids, newest first.
func (tx *Tx) ordersByIDs(ctx context.Context, ids []string) ([]orders.Order, error) {
	if len(ids) == 0 {
		return []orders.Order{}, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return tx.orderRows(ctx, `SELECT `+orderColumns+` FROM orders WHERE id IN (`+placeholders(len(ids))+`)
		ORDER BY created_at DESC, id DESC`, args...)
}

// walkTitles is the page of f's orders whose title is like like, found by
// walking the filter's own index newest first: through the newest n orders
// at most (fewer than f.Limit orders then means they held too few
// matches), or to the end of the page when n is 0. SQLite is told which
// index (it would rather scan and sort than walk an index a LIKE thins out
// by an unknown share); on PostgreSQL the LIKE is an expression
// orders_title_trgm does not index, so the planner walks too.
func (tx *Tx) walkTitles(ctx context.Context, conds []string, args []any, like string, f orders.AdminOrderFilter, n int64) ([]orders.Order, error) {
	from := "orders"
	if tx.db.dialect == SQLite {
		from = "orders INDEXED BY orders_created"
		switch {
		case f.Status != "":
			from = "orders INDEXED BY orders_status_created"
		case f.BuyerID != "":
			from = "orders INDEXED BY orders_buyer"
		case f.SellerID != "":
			from = "orders INDEXED BY orders_seller"
		}
	}
	title := `(lower(listing_title) || '') LIKE ? ESCAPE '\'`
	if n == 0 {
		return tx.orderRows(ctx, `SELECT `+orderColumns+` FROM `+from+` WHERE `+strings.Join(append(conds, title), " AND ")+
			` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, append(append([]any{}, args...), like, f.Limit, f.Offset)...)
	}
	where := ""
	if len(conds) > 0 {
		where = " WHERE " + strings.Join(conds, " AND ")
	}
	return tx.orderRows(ctx, `SELECT `+orderColumns+` FROM (SELECT * FROM `+from+where+
		` ORDER BY created_at DESC, id DESC LIMIT ?) recent WHERE `+title+`
		ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, append(append([]any{}, args...), n, like, f.Limit, f.Offset)...)
}

// titleWalk is how many of the newest orders the first walk looks
// through: a term in one order of a hundred fills a page of 20 in it
// almost always (at 2,000, one in three such terms missed), and a rarer
// term costs 3 to 7 ms before the index answers. Tests lower it to reach
// the other paths with few orders.
var titleWalk atomic.Int64

func init() { titleWalk.Store(4_000) }

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// DisputesOfOrder lists an order's disputes, oldest first (disputes_order).
func (tx *Tx) DisputesOfOrder(ctx context.Context, orderID string) ([]orders.Dispute, error) {
	return queryAll(ctx, tx, scanDispute, `SELECT `+disputeColumns+` FROM disputes WHERE order_id = ?
		ORDER BY created_at, id`, orderID)
}

// FinanceSummary sums the orders paid in [from, to) (orders_paid). Money
// refunded is booked on the order (amount_refunded, of which
// seller_refunded came from the seller); payouts follow
// orders.Order.NetPayout and the seller dashboard: released is the
// transfer less reversals, pending is what a live sale still owes.
func (tx *Tx) FinanceSummary(ctx context.Context, from, to time.Time) (*orders.Finance, error) {
	var f orders.Finance
	err := tx.queryRow(ctx, `SELECT COUNT(*), COALESCE(SUM(item_price), 0), COALESCE(SUM(service_fee), 0),
		COALESCE(SUM(commission), 0), COALESCE(SUM(amount_refunded), 0),
		COALESCE(SUM(amount_refunded - seller_refunded), 0),
		COALESCE(SUM(CASE WHEN payout_status = 'released' AND payout_amount > transfer_reversed
			THEN payout_amount - transfer_reversed ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN payout_status IN ('pending', 'frozen') THEN payout_amount
			WHEN payout_status = '' AND `+liveSale+` AND `+sellerNet+` > 0 THEN `+sellerNet+` ELSE 0 END), 0)
		FROM orders WHERE paid_at >= ? AND paid_at < ?`, from, to).
		Scan(&f.Orders, &f.GMV, &f.ServiceFees, &f.Commissions, &f.Refunds, &f.PlatformRefunds, &f.PayoutsReleased,
			&f.PayoutsPending)
	if err != nil {
		return nil, wrap(err)
	}
	return &f, nil
}

// Activity counts orders paid (orders_paid), users (users_created)
// and listings (listings_created) created in [from, to).
func (tx *Tx) Activity(ctx context.Context, from, to time.Time) (orders.Activity, error) {
	var a orders.Activity
	err := tx.queryRow(ctx, `SELECT COUNT(*), COALESCE(SUM(item_price), 0),
		COALESCE(SUM(CASE WHEN channel = 'agent' THEN 1 ELSE 0 END), 0)
		FROM orders WHERE paid_at >= ? AND paid_at < ?`, from, to).Scan(&a.Orders, &a.GMV, &a.AgentOrders)
	if err != nil {
		return a, wrap(err)
	}
	if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM users WHERE created_at >= ? AND created_at < ?`, from, to).
		Scan(&a.NewUsers); err != nil {
		return a, wrap(err)
	}
	err = tx.queryRow(ctx, `SELECT COUNT(*) FROM listings WHERE created_at >= ? AND created_at < ?`, from, to).
		Scan(&a.NewListings)
	return a, wrap(err)
}

// ActionItems counts what waits: held listings (listings_status_created),
// unresolved disputes (disputes_status), pending approvals
// (purchase_approvals_status), refunds requested or not yet taken
// (metrics_refunds_status).
func (tx *Tx) ActionItems(ctx context.Context) (orders.ActionItems, error) {
	var a orders.ActionItems
	err := tx.queryRow(ctx, `SELECT
		(SELECT COUNT(*) FROM listings WHERE status = 'held'),
		(SELECT COUNT(*) FROM disputes WHERE status IN ('open', 'seller_responded')),
		(SELECT COUNT(*) FROM purchase_approvals WHERE status = 'pending'),
		(SELECT COUNT(*) FROM refunds WHERE status IN ('requested', 'pending'))`).
		Scan(&a.HeldListings, &a.OpenDisputes, &a.PendingApprovals, &a.PendingRefunds)
	return a, wrap(err)
}

// ByChannel sums the orders paid in [from, to) per channel (orders_paid).
func (tx *Tx) ByChannel(ctx context.Context, from, to time.Time) (map[orders.Channel]orders.ChannelFigures, error) {
	rows, err := tx.query(ctx, `SELECT channel, COUNT(*), COALESCE(SUM(item_price), 0) FROM orders
		WHERE paid_at >= ? AND paid_at < ? GROUP BY channel`, from, to)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	out := map[orders.Channel]orders.ChannelFigures{}
	for rows.Next() {
		var ch string
		var f orders.ChannelFigures
		if err := rows.Scan(&ch, &f.Orders, &f.GMV); err != nil {
			return nil, wrap(err)
		}
		out[orders.Channel(ch)] = f
	}
	return out, wrap(rows.Err())
}
