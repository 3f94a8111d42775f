package listings

import "context"

// Sort orders search results. Ties are broken by id so that a cursor (the
// id of the last item) pages stably under every sort. Relevance is a tier
// (every term in the title, then in the title or brand, then anywhere),
// newest first inside a tier (by id; on SQLite by insertion order).
type Sort string

const (
	SortRelevance Sort = "relevance" // needs Text; best match first
	SortNewest    Sort = "newest"
	SortPriceAsc  Sort = "price_asc"
	SortPriceDesc Sort = "price_desc"
)

// SearchQuery is a parsed, validated search over active listings.
type SearchQuery struct {
	Text        string   // full-text query (see ParseText); "" for none
	AnyTerms    bool     // match listings with any of the terms, not all (similar listings)
	CategoryIDs []string // the category and all its descendants; empty for any
	Conditions  []string // exact stored conditions; empty for any
	MinPrice    *int64   // inclusive, cents
	MaxPrice    *int64   // inclusive, cents
	SellerID    string   // "" for any
	ExcludeID   string   // a listing to leave out (similar listings)
	Sort        Sort
	After       string // cursor: id of the last item of the previous page
	Limit       int    // 1..50
	NoTotal     bool   // leave SearchPage.Total at 0: saves counting a large match set when the caller shows no total
}

// SearchPage is one page of results.
type SearchPage struct {
	Listings []Listing
	Total    int    // matches over all pages
	Cursor   string // id of the last item when more may follow, else ""
}

// PriceSummary sums up the prices (cents) of the listings a query matches.
// Median is the middle price; with an even count the two middle prices'
// mean, rounded half up (as Median). All zero when Count is 0.
type PriceSummary struct {
	Count    int
	Min, Max int64
	Median   int64
}

// Searcher is what search needs from the store.
type Searcher interface {
	// SearchListings pages through the active listings q matches. A cursor
	// that is not a listing, or (relevance) not one the text matches, is a
	// VALIDATION_ERROR on "cursor".
	SearchListings(ctx context.Context, q SearchQuery) (SearchPage, error)
	// ComparablePrices: see Comparables.
	ComparablePrices(ctx context.Context, categorySlug, condition string) (sold, active []int64, err error)
	// CategorySubtree is the id of the category with this slug or id and
	// the ids of all its descendants; empty when there is no such category.
	CategorySubtree(ctx context.Context, slugOrID string) ([]string, error)
	// PriceSummary sums up the prices of the listings in status (active or
	// sold) that q's text, categories and conditions match.
	PriceSummary(ctx context.Context, q SearchQuery, status Status) (PriceSummary, error)
	// RecentSales lists the sold listings q matches, most recently sold first.
	RecentSales(ctx context.Context, q SearchQuery, limit int) ([]Listing, error)
}
