package listings

import (
	"context"
	"strings"
	"time"

	"marketplace/internal/market"
)

// Search runs a parsed search over the active listings: the category (slug
// or id) is resolved to it and its descendants as the store holds them now,
// so categories an admin added are searchable at once. An unknown category
// is a VALIDATION_ERROR on the category field; a cursor that is not a
// listing (or, under relevance, not one of this search's results) is one
// on "cursor".
func (s *Service) Search(ctx context.Context, p SearchParams) (SearchPage, error) {
	q, err := s.searchQuery(ctx, p)
	if err != nil {
		return SearchPage{}, err
	}
	return s.store.Read().SearchListings(ctx, q)
}

func (s *Service) searchQuery(ctx context.Context, p SearchParams) (SearchQuery, error) {
	q := SearchQuery{Text: p.Text, Conditions: p.Conditions, MinPrice: p.MinPrice, MaxPrice: p.MaxPrice,
		Sort: p.Sort, After: p.After, Limit: p.Limit, NoTotal: p.NoTotal}
	if q.Limit == 0 {
		q.Limit = DefaultSearchLimit
	}
	if len(ParseText(q.Text)) == 0 {
		q.Text = "" // nothing searchable in it: browse
		if q.Sort == SortRelevance {
			q.Sort = SortNewest
		}
	}
	if q.Sort == "" {
		q.Sort = SortNewest
		if q.Text != "" {
			q.Sort = SortRelevance
		}
	}
	if p.Category != "" {
		ids, err := s.store.Read().CategorySubtree(ctx, p.Category)
		if err != nil {
			return q, err
		}
		if len(ids) == 0 {
			field := p.CategoryField
			if field == "" {
				field = "category"
			}
			return q, market.Invalid(market.FieldError{Field: field, Message: "no category has this slug or id"})
		}
		q.CategoryIDs = ids
	}
	return q, nil
}

// similarWords is how many words of the source listing a similar-listings
// search uses.
const similarWords = 8

// Similar lists active listings like the given one, best match first: in
// the same category and its descendants, sharing words of its title and
// brand (any of them), never the listing itself. The source is any listing
// the actor may see (Get); limit 0 means DefaultSimilarLimit; outside 0..50
// it is a VALIDATION_ERROR on "limit". An unknown id is LISTING_NOT_FOUND.
func (s *Service) Similar(ctx context.Context, actor market.Actor, listingID string, limit int) (SearchPage, error) {
	switch {
	case limit == 0:
		limit = DefaultSimilarLimit
	case limit < 0 || limit > MaxSearchLimit:
		return SearchPage{}, market.Invalid(market.FieldError{Field: "limit", Message: "must be a whole number from 1 to 50"})
	}
	read := s.store.Read()
	src, err := s.visible(ctx, read, actor, listingID)
	if err != nil {
		return SearchPage{}, err
	}
	q := SearchQuery{ExcludeID: src.ID, AnyTerms: true, Limit: limit, Sort: SortRelevance, NoTotal: true}
	var words []string
	for _, t := range ParseText(src.Title + " " + src.Brand + " ") {
		words = append(words, t.Words...)
	}
	if len(words) > similarWords {
		words = words[:similarWords]
	}
	q.Text = strings.Join(words, " ")
	if q.Text == "" {
		q.Sort = SortNewest
	}
	if src.CategoryID != "" {
		ids, err := read.CategorySubtree(ctx, src.CategoryID)
		if err != nil {
			return SearchPage{}, err
		}
		q.CategoryIDs = ids // empty (any category) when it is gone
	}
	page, err := read.SearchListings(ctx, q)
	if err != nil {
		return SearchPage{}, err
	}
	page.Total, page.Cursor = len(page.Listings), ""
	return page, nil
}

// RecentSalesLimit is how many recent sales a price check lists.
const RecentSalesLimit = 10

// Sale is one recent sale in a price check.
type Sale struct {
	ListingID string
	Title     string
	Price     int64 // cents
	Condition string
	SoldAt    time.Time
}

// PriceCheck is what the market says about a query's prices: the active
// listings it matches (count, lowest, highest and median price) and its
// sales (count, median, the most recent ones). Prices are cents; a figure
// of a set with Count 0 is 0.
type PriceCheck struct {
	Count       int   // active listings matching
	Min, Max    int64 // their lowest and highest price
	Median      int64 // their median price (even count: the two middle prices' mean, rounded half up)
	SoldCount   int   // sold listings matching
	SoldMedian  int64
	RecentSales []Sale // at most RecentSalesLimit, most recent first
}

// PriceCheck sums up the prices of the listings matching the text,
// category and conditions of p (from ParsePriceCheck; other fields are
// ignored).
func (s *Service) PriceCheck(ctx context.Context, p SearchParams) (PriceCheck, error) {
	q, err := s.searchQuery(ctx, SearchParams{Text: p.Text, TextField: p.TextField, Category: p.Category,
		CategoryField: p.CategoryField, Conditions: p.Conditions})
	if err != nil {
		return PriceCheck{}, err
	}
	if q.Text == "" && len(q.CategoryIDs) == 0 {
		field := p.TextField
		if field == "" {
			field = "q"
		}
		return PriceCheck{}, market.Invalid(market.FieldError{Field: field, Message: "give a search text (or a category)"})
	}
	read := s.store.Read()
	active, err := read.PriceSummary(ctx, q, StatusActive)
	if err != nil {
		return PriceCheck{}, err
	}
	sold, err := read.PriceSummary(ctx, q, StatusSold)
	if err != nil {
		return PriceCheck{}, err
	}
	out := PriceCheck{Count: active.Count, Min: active.Min, Max: active.Max, Median: active.Median,
		SoldCount: sold.Count, SoldMedian: sold.Median, RecentSales: []Sale{}}
	if sold.Count == 0 {
		return out, nil
	}
	recent, err := read.RecentSales(ctx, q, RecentSalesLimit)
	if err != nil {
		return PriceCheck{}, err
	}
	for _, l := range recent {
		sale := Sale{ListingID: l.ID, Title: l.Title, Price: l.Price, Condition: l.Condition}
		if l.SoldAt != nil {
			sale.SoldAt = *l.SoldAt
		}
		out.RecentSales = append(out.RecentSales, sale)
	}
	return out, nil
}
