package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	"marketplace/internal/listings"
	"marketplace/internal/market"
)

// PostgreSQL's side of listing search (search.go has the design and the
// shared code): the tsvector of each tier (title_vector, head_vector,
// search_vector) with condition and category tags inside them (migration
// 00005), their tsquery syntax, and the plans of text searches by relevance
// and by price or date.

// pgVectors say where a tier's terms must be.
var pgVectors = [...]string{tierAny: "l.search_vector", tierBrand: "l.head_vector", tierTitle: "l.title_vector"}

// addTSText adds the text of a PostgreSQL search to m, a match over
// listings l: the terms in tier's vector, not in the tier above (tier 0:
// every match), with the conditions and a few categories as tag lexemes
// inside the vectors. It returns the categories and conditions left to
// filter on columns.
func (m *matchSet) addTSText(q listings.SearchQuery, terms []listings.TextTerm, tier int) (colCats, colConds []string) {
	// Conditions and a few categories are tag lexemes in the vectors.
	var tagCats []string
	colCats = q.CategoryIDs
	if len(q.CategoryIDs) <= fewCategories {
		tagCats, colCats = q.CategoryIDs, nil
	}
	t := max(tier, tierAny)
	m.add(pgVectors[t]+` @@ to_tsquery('english', ?)`, tsQuery(terms, anyIn(q.AnyTerms, t))+tsTags(tagCats, q.Conditions))
	if tier != 0 && tier < tierTitle {
		m.add(`NOT `+pgVectors[t+1]+` @@ to_tsquery('english', ?)`, tsQuery(terms, anyIn(q.AnyTerms, t+1)))
	}
	return colCats, nil
}

// tsQuery is the to_tsquery input for the terms: each word single-quoted
// (letters and digits only, so never syntax), phrases as <-> chains; all
// terms (&) or any (|).
func tsQuery(terms []listings.TextTerm, anyTerm bool) string {
	parts := make([]string, len(terms))
	for i, t := range terms {
		words := make([]string, len(t.Words))
		for j, w := range t.Words {
			words[j] = `'` + strings.ReplaceAll(w, `'`, `''`) + `'`
		}
		parts[i] = strings.Join(words, " <-> ")
	}
	op := " & "
	if anyTerm {
		op = " | "
	}
	return "(" + strings.Join(parts, op) + ")"
}

// tsTags is the category and condition filter as tag lexemes to add to a
// tsquery ("" for none); see migration 00005.
func tsTags(categoryIDs, conditions []string) string {
	var b strings.Builder
	add := func(tags []string) {
		b.WriteString(" & (")
		for i, t := range tags {
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(`'` + t + `'`)
		}
		b.WriteString(")")
	}
	if len(categoryIDs) > 0 {
		tags := make([]string, len(categoryIDs))
		for i, id := range categoryIDs {
			tags[i] = "c" + tagPart(id) + "0"
		}
		add(tags)
	}
	if len(conditions) > 0 {
		tags := make([]string, len(conditions))
		for i, c := range conditions {
			tags[i] = "k" + tagPart(c)
		}
		add(tags)
	}
	return b.String()
}

// tsCursorTiers reads which tiers' text the cursor listing matches (in
// whatever status it is now).
func (tx *Tx) tsCursorTiers(ctx context.Context, id string, terms []listings.TextTerm, anyTerm bool) (in [4]bool, err error) {
	tier := func(t int) string { return pgVectors[t] + ` @@ to_tsquery('english', ?)` }
	err = tx.queryRow(ctx, `SELECT `+tier(tierTitle)+`, `+tier(tierBrand)+`, `+tier(tierAny)+` FROM listings l WHERE l.id = ?`,
		tsQuery(terms, anyIn(anyTerm, tierTitle)), tsQuery(terms, anyIn(anyTerm, tierBrand)), tsQuery(terms, anyIn(anyTerm, tierAny)),
		id).Scan(&in[tierTitle], &in[tierBrand], &in[tierAny])
	return in, err
}

// tsRelevanceOrder is the ORDER BY of a relevance page's tiers on
// PostgreSQL. When all (every tier) is narrow, or the text has more than
// one term, each tier is read whole and sorted (ordering by an expression
// keeps the planner off the primary key): the planner would walk the key
// backwards, expecting its estimate of the matches spread evenly, and
// words that seldom meet in one title (two colours, two adjectives) pass
// tens of thousands of rows before the page fills, or every listing when
// they never meet (7.9 s at 1,000,000 listings). One word's estimate is
// close, and it meets itself.
func (tx *Tx) tsRelevanceOrder(ctx context.Context, all *matchSet, terms int) (string, error) {
	broad := false
	if terms == 1 {
		var err error
		if broad, err = tx.broadMatch(ctx, all, relevanceBroadMin); err != nil {
			return "", err
		}
	}
	if !broad {
		return `(l.id || '') DESC`, nil // the same order: the same text, the same collation
	}
	return `l.id DESC`, nil
}

// tsRelevanceQuery is the query of a relevance page's listings in one tier
// on PostgreSQL, in idOrder (tsRelevanceOrder): m is the tier's match, and
// after says the cursor cur is in this tier.
func tsRelevanceQuery(m *matchSet, idOrder string, after bool, cur *searchCursor) string {
	if after {
		m.add(`l.id < ?`, cur.id)
	}
	return `SELECT ` + prefixed("l.", listingColumns) + ` FROM ` + m.from + ` WHERE ` + m.whereSQL() +
		` ORDER BY ` + idOrder + ` LIMIT ?`
}

// tsOrderKey is the key a price or newest page of a text search orders by
// on PostgreSQL after the size of the match set, and how far a walk of
// the sort index may go (0: no walk). A broad set is walked (boundedWalk)
// for up to four times the listings a page of n should take at its
// density. A narrow one, and text of two or more terms, is read whole
// from the text index and sorted (the key expression, not a bare column,
// keeps the planner off the sort index, whose walk can pass many thousand
// rows before it finds a few matches that are rare, or cluster at the
// other end of the order).
func (tx *Tx) tsOrderKey(ctx context.Context, m *matchSet, key string, n int) (string, int, error) {
	if m.terms > 1 {
		// The estimate of two words assumes they meet as often as
		// chance says (see tsRelevanceOrder).
		return narrowKey(m, key), 0, nil
	}
	least, err := tx.leastOf(ctx, pgBroadMin)
	if err != nil {
		return "", 0, err
	}
	est, err := tx.tsEstimate(ctx, m)
	if err != nil || est < int64(least) {
		return narrowKey(m, key), 0, err
	}
	size, err := tx.catalogueSize(ctx)
	if err != nil {
		return "", 0, err
	}
	return key, max(int(walkMin.Load()), int(4*int64(n)*size/max(est, 1))), nil
}

// walkMin is the shortest bounded walk: a page of matches a few in a
// hundred apart (a variable for tests).
var walkMin atomic.Int64

func init() { walkMin.Store(2000) }

// narrowKey is key as an expression, which keeps PostgreSQL's planner off
// the sort index: every match is read and sorted.
func narrowKey(m *matchSet, key string) string {
	if key == m.created {
		return `(` + key + ` + interval '0 s')`
	}
	return `(` + key + ` + 0)`
}

// tsBroadMatch says whether m holds at least least listings. PostgreSQL
// takes the planner's estimate (tsEstimate).
func (tx *Tx) tsBroadMatch(ctx context.Context, m *matchSet, least int) (bool, error) {
	est, err := tx.tsEstimate(ctx, m)
	return est >= int64(least), err
}

// tsEstimate is the planner's estimate of m's size, which its statistics
// of the tsvector lexemes make close for words, from EXPLAIN: a count of
// even a capped number of matches visits that many heap pages, which cost
// more than the walk it chooses.
func (tx *Tx) tsEstimate(ctx context.Context, m *matchSet) (int64, error) {
	var plan []byte
	err := tx.queryRow(ctx, `EXPLAIN (FORMAT JSON) SELECT 1 FROM `+m.from+` WHERE `+m.whereSQL(), m.args...).Scan(&plan)
	if err != nil {
		return 0, wrap(err)
	}
	var est []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		}
	}
	if err := json.Unmarshal(plan, &est); err != nil || len(est) == 0 {
		return 0, market.Internal(fmt.Errorf("search: reading a plan estimate: %v", err))
	}
	return int64(est[0].Plan.Rows), nil
}

// tsSearchVersion reads the version of the data the search cache keys on:
// the current snapshot (equal snapshots see the same rows).
const tsSearchVersion = `SELECT pg_current_snapshot()::text`
