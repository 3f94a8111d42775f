package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/market"
)

// Search over both engines, built to stay fast on a large catalogue:
//
//   - Keyset paging. The cursor is the id of the last item; the next page
//     starts strictly after that item's sort key (then id), so rows added
//     or removed meanwhile never shift a page the way OFFSET would.
//   - Relevance is a tier, not a score: 3 = every term in the title, 2 =
//     in the title or brand, 1 = anywhere (title, brand, description);
//     for similar listings (any term) 3 = every term in the title, 2 = any
//     in the title or brand, 1 = any anywhere.
//     Inside a tier the newest comes first: by id on PostgreSQL, by docid
//     (insertion order, which is id order but for creates racing each
//     other) on SQLite. A page reads the best tier in index order and
//     stops at limit+1, instead of scoring every match (bm25 or ts_rank
//     over a few thousand matches cost 7-9 ms). A tier depends only on
//     the listing and the query, never on corpus statistics, so a listing's
//     place cannot move while a client pages, whatever is inserted.
//   - SQLite: search_fts (FTS5, migration 00005) finds matches and
//     search_docs holds each match's filter and sort columns. Listings
//     that are not active carry an "xinactive" tag that searches subtract;
//     a filter on a few categories is a tag match inside the index.
//     PostgreSQL: a tsvector per tier (title_vector, head_vector: title and
//     brand, search_vector: everything), each under a GIN index for active
//     listings, with condition and category as tag lexemes inside them.
//     Searches without text read listings through the
//     (status, created_at, id), (status, price, id) and (category_id,
//     created_at, id) indexes.
//   - A text search sorted by price or date picks its plan by the size of
//     the match set (broadMatch): a broad one walks the sort index and
//     keeps what matches, a narrow one reads every match and sorts.
//   - Result pages (their ids) and totals are cached per query and data
//     version (see searchCache): counting a large match set is the one
//     cost that grows with it, and a catalogue is read far more often than
//     it changes.
//   - Every SQL text depends only on the query's shape (which filters are
//     set, the sort, the tier, whether there is a cursor), never on its
//     values, so SQLite's cached prepared statements are reused; values
//     SQLite's planner would read (and re-plan for on every binding) are
//     bound as "+?" (docValue, and LIMIT in DB.sqlText).

// The listings area's search (listings.Searcher, which listings.Tx
// embeds): the shared code; each engine's own SQL is in search_sqlite.go
// and search_postgres.go.
var (
	_ listings.Searcher    = (*Tx)(nil)
	_ listings.Comparables = (*Tx)(nil)
)

// fewCategories is how many category ids a full-text search still filters
// inside the index (a tag per category); more are filtered per match, which
// is cheaper than merging many tag lists (a top-level category has ~35).
const fewCategories = 4

// searchable are the statuses a search may read: active for search, sold
// for price checks. They are written into the SQL (never bound) so that
// the partial indexes apply.
var searchable = map[listings.Status]bool{listings.StatusActive: true, listings.StatusSold: true}

var errUnsearchable = errors.New("search: status not searchable")

// Relevance tiers, best first.
const (
	tierTitle = 3 // every term in the title
	tierBrand = 2 // every term in the title or brand
	tierAny   = 1 // every term anywhere
)

// matchSet is the FROM and WHERE of the listings a query matches.
type matchSet struct {
	fts        bool // SQLite full text: search_fts joined to search_docs d
	text       bool // a full-text match (either engine)
	terms      int  // PostgreSQL: how many terms the text has
	from       string
	where      []string
	args       []any
	docFilters int  // SQLite full text: conditions on d (a count needs the join)
	uncovered  bool // SQLite full text: filters the sort indexes do not hold
	// SQLite full text: the MATCH expression without the status, and
	// the categories filtered as tags in it
	ftsText string
	tagCats []string
	status  listings.Status
	// column expressions
	id, price, created string
	// PostgreSQL: the price bounds among where, which a bounded walk of
	// the status index applies as it walks (boundedWalk)
	bounds []priceBound
}

type priceBound struct {
	op    string
	price int64
}

func (m *matchSet) add(cond string, args ...any) {
	m.where = append(m.where, cond)
	m.args = append(m.args, args...)
}

func (m *matchSet) whereSQL() string { return strings.Join(m.where, ` AND `) }

// match builds the match set of q's text and filters (not the cursor) in
// status. tier 0 is every match; 1 to 3 that tier alone. A text search on
// SQLite matches in the FTS5 index (ftsMatch); any other reads listings l,
// on PostgreSQL with the text matched in its vectors (addTSText).
func (tx *Tx) match(q listings.SearchQuery, terms []listings.TextTerm, status listings.Status, tier int) (*matchSet, error) {
	if !searchable[status] {
		return nil, market.Internal(errUnsearchable)
	}
	if len(terms) > 0 && tx.db.dialect == SQLite {
		return tx.ftsMatch(q, terms, status, tier), nil
	}
	m := &matchSet{text: len(terms) > 0, terms: len(terms)}
	m.from = `listings l`
	m.id, m.price, m.created = `l.id`, `l.price`, `l.created_at`
	m.add(`l.status = '` + string(status) + `'`)
	colCats, colConds := q.CategoryIDs, q.Conditions
	if len(terms) > 0 { // PostgreSQL
		colCats, colConds = m.addTSText(q, terms, tier)
	}
	if len(colCats) > 0 {
		frag, arg := tx.inList(`l.category_id`, colCats)
		m.add(frag, arg)
	}
	if len(colConds) > 0 {
		frag, arg := tx.inList(`l.item_condition`, colConds)
		m.add(frag, arg)
	}
	if q.MinPrice != nil {
		m.add(`l.price >= ?`, *q.MinPrice)
		m.bounds = append(m.bounds, priceBound{`>=`, *q.MinPrice})
	}
	if q.MaxPrice != nil {
		m.add(`l.price <= ?`, *q.MaxPrice)
		m.bounds = append(m.bounds, priceBound{`<=`, *q.MaxPrice})
	}
	if q.ExcludeID != "" {
		m.add(`l.id <> ?`, q.ExcludeID)
	}
	if q.SellerID != "" {
		m.add(`l.seller_id = ?`, q.SellerID)
	}
	return m, nil
}

// anyIn says whether a tier matches any of the terms: similar listings
// (anyTerm) need all of them in the title for the top tier, any elsewhere.
func anyIn(anyTerm bool, tier int) bool { return anyTerm && tier != tierTitle }

// tagPart is a category id or condition as the migration writes it into a
// tag: without dashes and underscores (anything else but ASCII letters and
// digits is dropped too, so a tag is never query syntax).
func tagPart(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, strings.ToLower(s))
}

// searchSort is the effective sort: relevance needs text.
func searchSort(s listings.Sort, hasText bool) listings.Sort {
	switch {
	case s == "" && hasText:
		return listings.SortRelevance
	case s == "" || (s == listings.SortRelevance && !hasText):
		return listings.SortNewest
	}
	return s
}

// searchCursor is the sort key of the cursor item.
type searchCursor struct {
	id      string
	price   int64
	created time.Time
	tier    int   // relevance
	docid   int64 // relevance on SQLite
}

func invalidCursor(msg string) error {
	return market.Invalid(market.FieldError{Field: "cursor", Message: msg})
}

func (tx *Tx) cursorOf(ctx context.Context, id string, terms []listings.TextTerm, anyTerm bool, sort listings.Sort) (*searchCursor, error) {
	if !market.ValidID(id) {
		return nil, invalidCursor("must be the id of the last listing of the previous page")
	}
	c := &searchCursor{id: id}
	err := tx.queryRow(ctx, `SELECT price, created_at FROM listings WHERE id = ?`, id).Scan(&c.price, &c.created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, invalidCursor("no listing has this id")
	}
	if err != nil {
		return nil, wrap(err)
	}
	c.created = c.created.UTC()
	if sort != listings.SortRelevance {
		return c, nil
	}
	// Under relevance the cursor must be a listing the text matches (in
	// whatever status it is now); its tier is where the next page starts.
	var in [4]bool
	if tx.db.dialect == SQLite {
		in, err = tx.ftsCursorTiers(ctx, c, terms, anyTerm)
	} else {
		in, err = tx.tsCursorTiers(ctx, id, terms, anyTerm)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, invalidCursor("no listing has this id")
	}
	if err != nil {
		return nil, wrap(err)
	}
	for t := tierTitle; t >= tierAny; t-- {
		if in[t] {
			c.tier = t
			return c, nil
		}
	}
	return nil, invalidCursor("this listing is not among the results of this search")
}

// SearchListings pages through the active listings q matches; see
// listings.Searcher.
func (tx *Tx) SearchListings(ctx context.Context, q listings.SearchQuery) (listings.SearchPage, error) {
	if q.Limit < 1 || q.Limit > listings.MaxSearchLimit {
		q.Limit = listings.DefaultSearchLimit
	}
	terms := listings.ParseText(q.Text)
	sort := searchSort(q.Sort, len(terms) > 0)
	cache, err := tx.searchCache(ctx)
	if err != nil {
		return listings.SearchPage{}, err
	}
	all, err := tx.match(q, terms, listings.StatusActive, 0)
	if err != nil {
		return listings.SearchPage{}, err
	}
	key := pageKey(q, terms, sort)
	var list []listings.Listing
	if ids, ok := cache.page(key); ok {
		list, err = tx.listingsByID(ctx, ids)
	} else {
		list, err = tx.searchPage(ctx, q, terms, sort, all)
		if err == nil {
			cache.putPage(key, list)
		}
	}
	if err != nil {
		return listings.SearchPage{}, err
	}
	page := listings.SearchPage{Listings: list}
	if len(list) > q.Limit {
		page.Listings = list[:q.Limit]
		page.Cursor = page.Listings[q.Limit-1].ID
	}
	switch {
	case q.NoTotal:
	case q.After == "" && page.Cursor == "":
		page.Total = len(page.Listings) // the whole match set is on this page
	default:
		if page.Total, err = tx.countMatches(ctx, all, cache); err != nil {
			return listings.SearchPage{}, err
		}
	}
	return page, nil
}

// searchPage reads up to q.Limit+1 listings from the cursor on.
func (tx *Tx) searchPage(ctx context.Context, q listings.SearchQuery, terms []listings.TextTerm, sort listings.Sort, all *matchSet) ([]listings.Listing, error) {
	var cur *searchCursor
	if q.After != "" {
		var err error
		if cur, err = tx.cursorOf(ctx, q.After, terms, q.AnyTerms, sort); err != nil {
			return nil, err
		}
	}
	switch {
	case sort == listings.SortRelevance:
		return tx.relevancePage(ctx, q, terms, cur, q.Limit+1, all)
	case all.fts:
		return tx.sortedFTSPage(ctx, all, sort, cur, q.Limit+1)
	}
	return tx.sortedPage(ctx, all, sort, cur, q.Limit+1)
}

// pageKey names a page of results: everything that decides which
// listings it holds, in order.
func pageKey(q listings.SearchQuery, terms []listings.TextTerm, sort listings.Sort) string {
	price := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatInt(*p, 10)
	}
	return fmt.Sprintf("page\x00%q\x00%t\x00%q\x00%q\x00%s\x00%s\x00%q\x00%q\x00%s\x00%q\x00%d", terms, q.AnyTerms,
		q.CategoryIDs, q.Conditions, price(q.MinPrice), price(q.MaxPrice), q.SellerID, q.ExcludeID, sort, q.After, q.Limit)
}

// listingsByID reads listings in the order of ids, leaving out any that
// is gone.
func (tx *Tx) listingsByID(ctx context.Context, ids []string) ([]listings.Listing, error) {
	if len(ids) == 0 {
		return []listings.Listing{}, nil
	}
	frag, arg := tx.inList(`id`, ids)
	list, err := tx.listingRows(ctx, `SELECT `+listingColumns+` FROM listings WHERE `+frag, arg)
	if err != nil {
		return nil, err
	}
	at := make(map[string]int, len(ids))
	for i, id := range ids {
		at[id] = i
	}
	slices.SortFunc(list, func(a, b listings.Listing) int { return at[a.ID] - at[b.ID] })
	return list, nil
}

// relevancePage reads tiers best first, each newest first, from the
// cursor's place on, until it has n listings (each engine's page of a tier:
// ftsRelevanceQuery, tsRelevanceQuery).
func (tx *Tx) relevancePage(ctx context.Context, q listings.SearchQuery, terms []listings.TextTerm, cur *searchCursor, n int, all *matchSet) ([]listings.Listing, error) {
	start := tierTitle
	if cur != nil {
		start = cur.tier
	}
	idOrder := `l.id DESC`
	if tx.db.dialect == Postgres {
		var err error
		if idOrder, err = tx.tsRelevanceOrder(ctx, all, len(terms)); err != nil {
			return nil, err
		}
	}
	var out []listings.Listing
	for tier := start; tier >= tierAny && len(out) < n; tier-- {
		m, err := tx.match(q, terms, listings.StatusActive, tier)
		if err != nil {
			return nil, err
		}
		after := cur != nil && tier == cur.tier
		var query string
		if m.fts {
			query = ftsRelevanceQuery(m, q, terms, tier, cur == nil && tier < start, out, after, cur)
		} else {
			query = tsRelevanceQuery(m, idOrder, after, cur)
		}
		list, err := tx.listingRows(ctx, query, append(m.args, n-len(out))...)
		if err != nil {
			return nil, err
		}
		out = append(out, list...)
	}
	return out, nil
}

// order is the ORDER BY of a sort over key (the sort column) and id, and
// the row comparison that keeps what comes after the cursor, whose values
// are bound at placeholder v ("?" or docValue).
func order(sort listings.Sort, key, id, v string) (orderBy, after string) {
	if sort == listings.SortPriceAsc {
		return key + ` ASC, ` + id + ` ASC`, `(` + key + `, ` + id + `) > (` + v + `, ` + v + `)`
	}
	return key + ` DESC, ` + id + ` DESC`, `(` + key + `, ` + id + `) < (` + v + `, ` + v + `)`
}

// sortKey is the column a price or newest sort orders by, and the cursor's
// value of it.
func sortKey(m *matchSet, sort listings.Sort, cur *searchCursor) (string, any) {
	if sort == listings.SortPriceAsc || sort == listings.SortPriceDesc {
		if cur != nil {
			return m.price, cur.price
		}
		return m.price, nil
	}
	if cur != nil {
		return m.created, cur.created
	}
	return m.created, nil
}

// sortedPage is a price or newest page over listings l. With text (on
// PostgreSQL: SQLite's text searches take sortedFTSPage), the plan follows
// the size of the match set (tsOrderKey): a broad one walks the sort index
// at most so far (boundedWalk) and is read whole when the walk comes back
// short.
func (tx *Tx) sortedPage(ctx context.Context, m *matchSet, sort listings.Sort, cur *searchCursor, n int) ([]listings.Listing, error) {
	key, curKey := sortKey(m, sort, cur)
	orderKey, walk := key, 0
	if m.text {
		var err error
		if orderKey, walk, err = tx.tsOrderKey(ctx, m, key, n); err != nil {
			return nil, err
		}
	}
	_, after := order(sort, key, m.id, `?`)
	where, args := slices.Clone(m.where), slices.Clone(m.args)
	if cur != nil {
		where, args = append(where, after), append(args, curKey, cur.id)
	}
	if walk > 0 {
		list, err := tx.boundedWalk(ctx, m, sort, key, cur, curKey, where, args, walk, n)
		if err != nil || len(list) == n {
			return list, err
		}
		orderKey = narrowKey(m, key)
	}
	orderBy, _ := order(sort, orderKey, m.id, `?`)
	return tx.listingRows(ctx, `SELECT `+prefixed("l.", listingColumns)+` FROM `+m.from+` WHERE `+strings.Join(where, ` AND `)+
		` ORDER BY `+orderBy+` LIMIT ?`, append(args, n)...)
}

// boundedWalk is a broad PostgreSQL text search's page by a walk of the
// status index in sort order (listings_status_price or _created), which
// checks each listing's vector and stops after walk listings: matches
// that cluster at the far end of the order would otherwise have it pass
// most of the catalogue (a brand's cheap items sorted by price
// descending: 2.4 s at 1,000,000 listings). A page that comes back short
// (fewer than n) is not the answer; the caller reads every match instead.
func (tx *Tx) boundedWalk(ctx context.Context, m *matchSet, sort listings.Sort, key string, cur *searchCursor, curKey any,
	where []string, args []any, walk, n int) ([]listings.Listing, error) {
	col := strings.TrimPrefix(key, "l.")
	inner := []string{`w.status = '` + string(listings.StatusActive) + `'`}
	var innerArgs []any
	for _, b := range m.bounds {
		inner, innerArgs = append(inner, `w.price `+b.op+` ?`), append(innerArgs, b.price)
	}
	if cur != nil {
		_, after := order(sort, `w.`+col, `w.id`, `?`)
		inner, innerArgs = append(inner, after), append(innerArgs, curKey, cur.id)
	}
	walkOrder, _ := order(sort, `w.`+col, `w.id`, `?`)
	pageOrder, _ := order(sort, `s.k`, `s.id`, `?`)
	// The outer ORDER BY follows the walk's, so the join keeps its order
	// and the page stops at n without reading the rest of the walk.
	query := `SELECT ` + prefixed("l.", listingColumns) + ` FROM (SELECT w.id, w.` + col + ` AS k FROM listings w WHERE ` +
		strings.Join(inner, ` AND `) + ` ORDER BY ` + walkOrder + ` LIMIT ?) s JOIN listings l ON l.id = s.id WHERE ` +
		strings.Join(where, ` AND `) + ` ORDER BY ` + pageOrder + ` LIMIT ?`
	return tx.listingRows(ctx, query, append(append(append(innerArgs, walk), args...), n)...)
}

// breadth is a threshold of broadMatch: a match set is broad from least
// matches, and, when per is set, from one in per of the catalogue's
// listings when that is more. A walk of the sort index passes about
// n x catalogue / matches listings before a page of n fills, and many more
// when the matches cluster at the far end of the order, as a word's items
// cluster in price; reading and sorting every match costs the matches
// alone. At 100,000 listings the fixed numbers held; at 1,000,000 a word
// with 3,400 matches (one in 260) walked the price index for 3 s on
// PostgreSQL against 30 ms read whole, and 6,500 matches 0.5 s on SQLite
// against 70 ms, so a price walk's threshold grows with the catalogue.
// Dates and ids do not cluster by word, and SQLite's date walk is cheap
// (an index of search_docs): it keeps the fixed number.
type breadth struct{ least, per int }

// The thresholds: at the fixed number a page of 20 is found within a few
// thousand listings. PostgreSQL's walk costs more per row (a heap row and
// its vector, and the row of a price bound when the walk is by date: 2 to
// 4 s under load at a million), so it needs a denser set by either sort;
// a walk of the primary key for relevance reads only the title vector, so
// it needs less.
var (
	broadMin          = breadth{least: 1000}
	priceBroadMin     = breadth{least: 1000, per: 100}
	pgBroadMin        = breadth{least: 1500, per: 100}
	relevanceBroadMin = breadth{least: 500}
)

// broadMatch says whether m is broad by b (SQLite counts, ftsBroadMatch;
// PostgreSQL estimates, tsBroadMatch).
func (tx *Tx) broadMatch(ctx context.Context, m *matchSet, b breadth) (bool, error) {
	least, err := tx.leastOf(ctx, b)
	if err != nil {
		return false, err
	}
	if tx.db.dialect == Postgres {
		return tx.tsBroadMatch(ctx, m, least)
	}
	return tx.ftsBroadMatch(ctx, m, least)
}

// leastOf is the number of matches from which a set is broad by b in
// this catalogue.
func (tx *Tx) leastOf(ctx context.Context, b breadth) (int, error) {
	if b.per == 0 {
		return b.least, nil
	}
	size, err := tx.catalogueSize(ctx)
	return max(b.least, int(size/int64(b.per))), err
}

// catalogueTTL is how long an estimate of the catalogue's size serves:
// it only steers a plan, and moves slowly.
const catalogueTTL = 30 * time.Second

// catalogue is the last estimate of how many listings searches read.
type catalogue struct {
	mu   sync.Mutex
	size int64
	at   time.Time
}

// catalogueSize estimates the number of listings the search indexes
// hold, whatever their status: the highest docid on SQLite, the planner's
// row estimate on PostgreSQL (0 before the first ANALYZE), at most
// catalogueTTL old.
func (tx *Tx) catalogueSize(ctx context.Context) (int64, error) {
	c := &tx.db.search.catalogue
	c.mu.Lock()
	size, fresh := c.size, time.Since(c.at) < catalogueTTL
	c.mu.Unlock()
	if fresh {
		return size, nil
	}
	query := `SELECT COALESCE(MAX(docid), 0) FROM search_docs`
	if tx.db.dialect == Postgres {
		query = `SELECT GREATEST(reltuples, 0)::bigint FROM pg_class WHERE oid = 'listings'::regclass`
	}
	if err := tx.queryRow(ctx, query).Scan(&size); err != nil {
		return 0, wrap(err)
	}
	c.mu.Lock()
	c.size, c.at = size, time.Now()
	c.mu.Unlock()
	return size, nil
}

// countMatches counts the whole match set (on SQLite without row filters
// from the index alone), through the cache.
func (tx *Tx) countMatches(ctx context.Context, m *matchSet, cache *cacheView) (int, error) {
	from := m.from
	if m.fts && m.docFilters == 0 {
		from = `search_fts`
	}
	query := `SELECT COUNT(*) FROM ` + from + ` WHERE ` + m.whereSQL()
	key := "total\x00" + query + "\x00" + fmt.Sprintf("%#v", m.args)
	if n, ok := cache.total(key); ok {
		return n, nil
	}
	var n int
	if err := tx.queryRow(ctx, query, m.args...).Scan(&n); err != nil {
		return 0, wrap(err)
	}
	cache.putTotal(key, n)
	return n, nil
}

// The search cache keeps, per query, the ids of a result page and the
// match count, each with the data version it was read at, and serves them
// while the version is unchanged: SQLite's search_version counter (bumped
// by the listings triggers in the same transaction as the change),
// PostgreSQL's current snapshot (equal snapshots see the same rows). The
// version is read before the query, so a change racing the query can only
// make an entry look stale, never a stale entry look fresh. A hit reads the
// page's rows again by id, so what is shown of each listing is current.
// Transactions bypass it: they may see their own uncommitted changes.
type searchCache struct {
	mu        sync.Mutex
	entries   map[string]cacheEntry
	catalogue catalogue // beside the cache, not in it: an estimate needs no version
}

type cacheEntry struct {
	version string
	n       int
	ids     []string
}

// maxCacheEntries bounds the cache (a page entry holds at most 51 ids);
// when full it starts again empty.
const maxCacheEntries = 4096

// cacheView is the cache as one request sees it: at one version. A nil
// view caches nothing.
type cacheView struct {
	c       *searchCache
	version string
}

func (tx *Tx) searchCache(ctx context.Context) (*cacheView, error) {
	if tx.sqlTx != nil {
		return nil, nil
	}
	v := &cacheView{c: &tx.db.search}
	version := tsSearchVersion
	if tx.db.dialect == SQLite {
		version = ftsSearchVersion
	}
	return v, wrap(tx.queryRow(ctx, version).Scan(&v.version))
}

func (v *cacheView) get(key string) (cacheEntry, bool) {
	if v == nil {
		return cacheEntry{}, false
	}
	v.c.mu.Lock()
	defer v.c.mu.Unlock()
	e, ok := v.c.entries[key]
	return e, ok && e.version == v.version
}

func (v *cacheView) put(key string, e cacheEntry) {
	if v == nil {
		return
	}
	e.version = v.version
	v.c.mu.Lock()
	defer v.c.mu.Unlock()
	if v.c.entries == nil || len(v.c.entries) >= maxCacheEntries {
		v.c.entries = make(map[string]cacheEntry, 64)
	}
	v.c.entries[key] = e
}

func (v *cacheView) total(key string) (int, bool) {
	e, ok := v.get(key)
	return e.n, ok
}

func (v *cacheView) putTotal(key string, n int) { v.put(key, cacheEntry{n: n}) }

func (v *cacheView) page(key string) ([]string, bool) {
	e, ok := v.get(key)
	return e.ids, ok && e.ids != nil
}

func (v *cacheView) putPage(key string, list []listings.Listing) {
	ids := make([]string, len(list))
	for i, l := range list {
		ids[i] = l.ID
	}
	v.put(key, cacheEntry{ids: ids})
}

// CategorySubtree is the id of the category with this slug or id and the
// ids of all its descendants, sorted; empty when there is none.
func (tx *Tx) CategorySubtree(ctx context.Context, slugOrID string) ([]string, error) {
	out, err := queryAll(ctx, tx, scanOne[string], `WITH RECURSIVE sub (id) AS (
			SELECT id FROM categories WHERE id = ? OR slug = ?
			UNION
			SELECT c.id FROM categories c JOIN sub ON c.parent_id = sub.id
		) SELECT id FROM sub`, slugOrID, slugOrID)
	slices.Sort(out)
	return out, err
}

// comparableLimit is how many recent prices of each kind ComparablePrices
// gives.
const comparableLimit = 50

// ComparablePrices gives the prices of the most recently sold and the most
// recently created active listings in the category with this slug (that
// category only, not its descendants), in the condition ("" for any).
func (tx *Tx) ComparablePrices(ctx context.Context, categorySlug, condition string) (sold, active []int64, err error) {
	var catID string
	err = tx.queryRow(ctx, `SELECT id FROM categories WHERE slug = ?`, categorySlug).Scan(&catID)
	if errors.Is(err, sql.ErrNoRows) {
		return []int64{}, []int64{}, nil
	}
	if err != nil {
		return nil, nil, wrap(err)
	}
	cond, args := "", []any{catID}
	if condition != "" {
		cond, args = ` AND item_condition = ?`, append(args, condition)
	}
	args = append(args, comparableLimit)
	if sold, err = tx.prices(ctx, `SELECT price FROM listings WHERE category_id = ? AND status = 'sold'`+cond+
		` ORDER BY sold_at DESC, id DESC LIMIT ?`, args...); err != nil {
		return nil, nil, err
	}
	if active, err = tx.prices(ctx, `SELECT price FROM listings WHERE category_id = ? AND status = 'active'`+cond+
		` ORDER BY created_at DESC, id DESC LIMIT ?`, args...); err != nil {
		return nil, nil, err
	}
	return sold, active, nil
}

func (tx *Tx) prices(ctx context.Context, query string, args ...any) ([]int64, error) {
	return queryAll(ctx, tx, scanOne[int64], query, args...)
}

// PriceSummary sums up the prices of the listings in status (active or
// sold) that q's text, categories and conditions match (price bounds,
// seller and exclusion apply too when set). The median is exact: the
// middle one or two prices are read at their offset.
func (tx *Tx) PriceSummary(ctx context.Context, q listings.SearchQuery, status listings.Status) (listings.PriceSummary, error) {
	var s listings.PriceSummary
	m, err := tx.match(q, listings.ParseText(q.Text), status, 0)
	if err != nil {
		return s, err
	}
	err = tx.queryRow(ctx, `SELECT COUNT(*), COALESCE(MIN(`+m.price+`), 0), COALESCE(MAX(`+m.price+`), 0) FROM `+m.from+
		` WHERE `+m.whereSQL(), m.args...).Scan(&s.Count, &s.Min, &s.Max)
	if err != nil || s.Count == 0 {
		return s, wrap(err)
	}
	n, offset := 1, (s.Count-1)/2
	if s.Count%2 == 0 {
		n = 2
	}
	mid, err := tx.prices(ctx, `SELECT `+m.price+` FROM `+m.from+` WHERE `+m.whereSQL()+` ORDER BY `+m.price+
		` LIMIT ? OFFSET ?`, append(slices.Clone(m.args), n, offset)...)
	if err != nil {
		return s, err
	}
	s.Median = listings.Median(mid)
	return s, nil
}

// RecentSales lists the sold listings q matches, most recently sold first.
func (tx *Tx) RecentSales(ctx context.Context, q listings.SearchQuery, limit int) ([]listings.Listing, error) {
	m, err := tx.match(q, listings.ParseText(q.Text), listings.StatusSold, 0)
	if err != nil {
		return nil, err
	}
	from := m.from
	if m.fts {
		from += ` JOIN listings l ON l.id = d.listing_id`
	}
	return tx.listingRows(ctx, `SELECT `+prefixed("l.", listingColumns)+` FROM `+from+` WHERE `+m.whereSQL()+
		` ORDER BY l.sold_at DESC, l.id DESC LIMIT ?`, append(slices.Clone(m.args), limit)...)
}
