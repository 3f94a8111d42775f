package agentv1

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/listings"
)

type searchResult struct {
	Listings []any   `json:"listings" items.ref:"Listing"`
	Total    int     `json:"total" minimum:"0" doc:"Matches over all pages."`
	Cursor   *string `json:"cursor" doc:"Send it as 'cursor' for the next page; null at the end."`
}

// search is GET /v1/search: {listings, total, cursor}.
func (a *API) search(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.searchOf(r.Context(), httpapi.PrincipalOf(r), r.URL.Query()))
}

// searchOf is GET /v1/search with the query q, and the search_listings tool.
func (a *API) searchOf(ctx context.Context, c *httpapi.Principal, q url.Values) (*searchResult, error) {
	p, err := listings.ParseSearch(q)
	if err != nil {
		return nil, err
	}
	page, err := a.ListingOps().Search(ctx, c, p)
	return searchResultOf(page, err)
}

// searchResultOf is a search page as Variant B spells it.
func searchResultOf(page api.ListingPage, err error) (*searchResult, error) {
	if err != nil {
		return nil, err
	}
	out := searchResult{Listings: spelled(page.Listings), Total: page.Total}
	if page.Cursor != "" {
		out.Cursor = &page.Cursor
	}
	return &out, nil
}

// similar is GET /v1/search/similar/{id}: active listings like this one.
func (a *API) similar(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.similarOf(r.Context(), httpapi.PrincipalOf(r), r.PathValue("id"), r.URL.Query()))
}

// similarOf is GET /v1/search/similar/{id} (q holds the limit) and the
// get_similar_listings tool.
func (a *API) similarOf(ctx context.Context, c *httpapi.Principal, id string, q url.Values) (*searchResult, error) {
	limit, err := listings.ParseLimit(q, listings.DefaultSimilarLimit)
	if err != nil {
		return nil, err
	}
	page, err := a.ListingOps().Similar(ctx, c, id, limit)
	return searchResultOf(page, err)
}

type sale struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Price     int64     `json:"price" doc:"Cents."`
	Condition string    `json:"condition" doc:"The Variant B word ('new' for both new conditions)."`
	SoldAt    time.Time `json:"sold_at"`
}

type priceCheck struct {
	Query       string  `json:"query" doc:"The text query ('q'), '\"\"' when none was given."`
	Category    *string `json:"category" doc:"The category filter as sent (lower case), or null."`
	Condition   *string `json:"condition" doc:"The 'condition' parameter as sent, or null."`
	ActiveCount int     `json:"active_count" minimum:"0" doc:"Matching active listings."`
	Min         *int64  `json:"min" doc:"Lowest active price; null when no active listing matches."`
	Max         *int64  `json:"max" doc:"Highest active price; null when no active listing matches."`
	Median      *int64  `json:"median" doc:"Median active price; null when no active listing matches."`
	SoldCount   int     `json:"sold_count" minimum:"0" doc:"Matching sold items."`
	SoldMedian  *int64  `json:"sold_median" doc:"Median sale price; null when none sold."`
	RecentSales []sale  `json:"recent_sales" doc:"Up to ten matching sales, most recently sold first."`
}

// priceCheck is GET /v1/search/price-check: the price range and median of
// matching active listings, and their recent sales.
func (a *API) priceCheck(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.priceCheckOf(r.Context(), r.URL.Query()))
}

// priceCheckOf is GET /v1/search/price-check with the query q, and the
// get_price_check tool.
func (a *API) priceCheckOf(ctx context.Context, q url.Values) (*priceCheck, error) {
	p, err := listings.ParsePriceCheck(q)
	if err != nil {
		return nil, err
	}
	pc, err := a.Listings.PriceCheck(ctx, p)
	if err != nil {
		return nil, err
	}
	out := priceCheck{Query: p.Text, Category: strOrNil(p.Category),
		Condition: strOrNil(strings.ToLower(strings.TrimSpace(q.Get("condition")))), ActiveCount: pc.Count,
		SoldCount: pc.SoldCount, RecentSales: make([]sale, len(pc.RecentSales))}
	if pc.Count > 0 {
		out.Min, out.Max, out.Median = &pc.Min, &pc.Max, &pc.Median
	}
	if pc.SoldCount > 0 {
		out.SoldMedian = &pc.SoldMedian
	}
	for i, s := range pc.RecentSales {
		out.RecentSales[i] = sale{ID: s.ListingID, Title: s.Title, Price: s.Price, Condition: api.ConditionWord(s.Condition),
			SoldAt: s.SoldAt}
	}
	return &out, nil
}
