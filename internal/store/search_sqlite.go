package store

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"marketplace/internal/listings"
)

// SQLite's side of listing search (search.go has the design and the shared
// code): the FTS5 index search_fts, with search_docs d holding each match's
// filter and sort columns (migration 00005), its query syntax, and the
// plans of text searches by relevance and by price or date.

// ftsColumns say where a tier's terms must be.
var ftsColumns = [...]string{tierAny: "title brand description", tierBrand: "title brand", tierTitle: "title"}

// ftsMatch is match for a text search on SQLite: search_fts finds the
// matches, joined to search_docs d for their filter and sort columns.
func (tx *Tx) ftsMatch(q listings.SearchQuery, terms []listings.TextTerm, status listings.Status, tier int) *matchSet {
	m := &matchSet{text: true, fts: true}
	m.from = `search_fts JOIN search_docs d ON d.docid = search_fts.rowid`
	m.id, m.price, m.created = `d.listing_id`, `d.price`, `d.created_at`
	var tagCats []string
	if len(q.CategoryIDs) <= fewCategories {
		tagCats = q.CategoryIDs
	}
	// The MATCH stays the first condition: broadMatch and
	// sortedFTSPage read and replace it.
	m.ftsText, m.tagCats, m.status = ftsTags(ftsTierText(terms, q.AnyTerms, tier), tagCats), tagCats, status
	m.add(`search_fts MATCH ?`, ftsStatus(m.ftsText, status))
	before := len(m.where)
	if len(q.CategoryIDs) > fewCategories {
		frag, arg := tx.inList(`d.category_id`, q.CategoryIDs)
		m.add(frag, arg)
	}
	if len(q.Conditions) > 0 {
		frag, arg := tx.inList(`d.item_condition`, q.Conditions)
		m.add(frag, arg)
	}
	if q.MinPrice != nil {
		m.add(`d.price >= `+docValue, *q.MinPrice)
	}
	if q.MaxPrice != nil {
		m.add(`d.price <= `+docValue, *q.MaxPrice)
	}
	if q.ExcludeID != "" {
		m.add(`d.listing_id <> ?`, q.ExcludeID)
	}
	if q.SellerID != "" {
		m.add(`d.seller_id = ?`, q.SellerID)
	}
	m.docFilters = len(m.where) - before
	m.uncovered = q.SellerID != "" || len(q.CategoryIDs) > fewCategories
	return m
}

// docValue is the placeholder of a value compared with a column of
// search_docs' indexes (price, created_at). Against a bare "?" SQLite reads
// the bound value when it plans (in the index samples of sqlite_stat4) and
// so plans the statement again each time it is bound anew, which is every
// search; "+?" is the same value, which the planner does not read. Which
// index a full-text search walks is decided by broadMatch, not by it.
const docValue = `+?`

// ftsTerms is the terms as an FTS5 expression: each word quoted (terms hold
// only letters and digits, so nothing the user typed is read as syntax),
// phrases as quoted word sequences.
func ftsTerms(terms []listings.TextTerm, anyTerm bool) string {
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = ftsQuote(strings.Join(t.Words, " "))
	}
	op := " AND "
	if anyTerm {
		op = " OR "
	}
	return "(" + strings.Join(parts, op) + ")"
}

// ftsTier matches the terms in tier's columns (tiers below included).
func ftsTier(terms []listings.TextTerm, anyTerm bool, tier int) string {
	return `{` + ftsColumns[tier] + `} : ` + ftsTerms(terms, anyIn(anyTerm, tier))
}

// ftsTierText matches the terms in tier (0: every match): the tier's
// columns, less the tier above.
func ftsTierText(terms []listings.TextTerm, anyTerm bool, tier int) string {
	expr := func(t int) string { return ftsTier(terms, anyTerm, t) }
	switch tier {
	case 0:
		return expr(tierAny)
	case tierTitle:
		return expr(tier)
	}
	return `(` + expr(tier) + `) NOT (` + expr(tier+1) + `)`
}

// ftsTags adds the category tags to a text expression.
func ftsTags(text string, categoryIDs []string) string {
	expr := `(` + text + `)`
	if len(categoryIDs) > 0 {
		tags := make([]string, len(categoryIDs))
		for i, id := range categoryIDs {
			tags[i] = ftsQuote("c" + tagPart(id) + "0")
		}
		expr = `(` + expr + ` AND tags : (` + strings.Join(tags, " OR ") + `))`
	}
	return expr
}

// ftsStatus adds the status to an expression: active is not tagged
// inactive.
func ftsStatus(expr string, status listings.Status) string {
	if status == listings.StatusActive {
		return expr + ` NOT tags : "xinactive"`
	}
	return expr + ` AND tags : ` + ftsQuote("s"+string(status))
}

// ftsQuote quotes s as one FTS5 string.
func ftsQuote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// ftsCursorTiers reads which tiers' text the cursor listing matches (in
// whatever status it is now), and its docid, the order within a tier.
func (tx *Tx) ftsCursorTiers(ctx context.Context, c *searchCursor, terms []listings.TextTerm, anyTerm bool) (in [4]bool, err error) {
	tierSQL := `(SELECT COUNT(*) FROM search_fts WHERE search_fts MATCH ? AND rowid = d.docid)`
	err = tx.queryRow(ctx, `SELECT d.docid, `+tierSQL+`, `+tierSQL+`, `+tierSQL+` FROM search_docs d WHERE d.listing_id = ?`,
		ftsTier(terms, anyTerm, tierTitle), ftsTier(terms, anyTerm, tierBrand), ftsTier(terms, anyTerm, tierAny), c.id).Scan(
		&c.docid, &in[tierTitle], &in[tierBrand], &in[tierAny])
	return in, err
}

// ftsRelevanceQuery is the query of a relevance page's listings in one
// tier on SQLite, newest (highest docid) first: m is the tier's match,
// after says the cursor cur is in this tier, and aboveRead that the tiers
// above were read whole into out.
func ftsRelevanceQuery(m *matchSet, q listings.SearchQuery, terms []listings.TextTerm, tier int, aboveRead bool, out []listings.Listing,
	after bool, cur *searchCursor) string {
	// The status is read from the listing, which the page reads
	// anyway: subtracting the inactive tag inside the text index
	// costs a walk of every inactive listing's entry per query,
	// as much as the match itself.
	text := ftsTierText(terms, q.AnyTerms, tier)
	if aboveRead {
		// The tiers above were read whole (a tier is left only
		// when it runs out), so leaving out the listings already
		// read is the same as subtracting those tiers' matches,
		// without matching the terms once more.
		text = ftsTier(terms, q.AnyTerms, tier)
		m.add(`d.listing_id NOT IN (SELECT value FROM json_each(?))`, idsJSON(out))
	}
	m.args[0] = ftsTags(text, m.tagCats)
	m.add(`l.status = '` + string(listings.StatusActive) + `'`)
	if after {
		m.add(`search_fts.rowid < ?`, cur.docid)
	}
	return `SELECT ` + prefixed("l.", listingColumns) + ` FROM ` + m.from + ` JOIN listings l ON l.id = d.listing_id
				WHERE ` + m.whereSQL() + ` ORDER BY search_fts.rowid DESC LIMIT ?`
}

// idsJSON is the ids of list as a JSON array, for json_each.
func idsJSON(list []listings.Listing) string {
	ids := make([]string, len(list))
	for i, l := range list {
		ids[i] = l.ID
	}
	b, _ := json.Marshal(ids) // []string always marshals
	return string(b)
}

// sortedFTSPage is a price or newest page of a SQLite full-text search.
// A broad match set walks search_docs in sort order (the search_docs_price
// or search_docs_created index), keeping the listings in the match set,
// which SQLite reads from the text index once into a temporary b-tree, and
// then the listing's status (subtracting the inactive tag in the text index
// cost as much as reading the match set; the walk reads a listing only for
// the few it keeps). A narrow one reads every match, with its status from
// the text index, and sorts the page's ids before reading their rows (a
// walk would pass too many listings).
func (tx *Tx) sortedFTSPage(ctx context.Context, m *matchSet, sort listings.Sort, cur *searchCursor, n int) ([]listings.Listing, error) {
	key, curKey := sortKey(m, sort, cur)
	// A filter on the seller or many categories would read a row of
	// search_docs for every listing walked, which may be all of them.
	broad := false
	if !m.uncovered {
		least := broadMin
		if key == m.price {
			least = priceBroadMin
		}
		var err error
		if broad, err = tx.broadMatch(ctx, m, least); err != nil {
			return nil, err
		}
	}
	orderBy, after := order(sort, key, m.id, docValue)
	from, where, args := m.from, slices.Clone(m.where), slices.Clone(m.args)
	if broad {
		index := `search_docs_created`
		if key == m.price {
			index = `search_docs_price`
		}
		// The unary + keeps SQLite from driving the walk by docid; CROSS
		// JOIN keeps the walk outermost.
		from = `search_docs d INDEXED BY ` + index + ` CROSS JOIN listings l ON l.id = d.listing_id`
		where[0], args[0] = `+d.docid IN (SELECT rowid FROM search_fts WHERE search_fts MATCH ?)`, m.ftsText
		where = append(where, `l.status = '`+string(m.status)+`'`)
	}
	if cur != nil {
		where, args = append(where, after), append(args, curKey, cur.id)
	}
	if broad {
		return tx.listingRows(ctx, `SELECT `+prefixed("l.", listingColumns)+` FROM `+from+` WHERE `+strings.Join(where, ` AND `)+
			` ORDER BY `+orderBy+` LIMIT ?`, append(args, n)...)
	}
	outer, _ := order(sort, "m.k", "m.id", `?`)
	return tx.listingRows(ctx, `SELECT `+prefixed("l.", listingColumns)+` FROM (SELECT `+m.id+` AS id, `+key+` AS k FROM `+
		from+` WHERE `+strings.Join(where, ` AND `)+` ORDER BY `+orderBy+` LIMIT ?) m JOIN listings l ON l.id = m.id
		ORDER BY `+outer, append(args, n)...)
}

// ftsBroadMatch says whether m holds at least least listings. SQLite
// counts, stopping there, in the text index alone (the join to
// search_docs is what a count would spend its time on), and asks for four
// times as many when filters on search_docs will leave only part of them
// (one condition keeps about a fifth; a walk that finds fewer passes more
// of the index).
func (tx *Tx) ftsBroadMatch(ctx context.Context, m *matchSet, least int) (bool, error) {
	// Counted without the status (inactive listings are a small part of
	// a match set), which halves the cost of the count.
	where, args := `search_fts MATCH ?`, []any{m.ftsText}
	if m.docFilters > 0 {
		least *= 4
	}
	var n int
	err := tx.queryRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM search_fts WHERE `+where+` LIMIT ?)`,
		append(args, least)...).Scan(&n)
	return n >= least, wrap(err)
}

// ftsSearchVersion reads the version of the data the search cache keys
// on: the search_version counter, which the listings triggers bump in the
// same transaction as the change.
const ftsSearchVersion = `SELECT n FROM search_version`
