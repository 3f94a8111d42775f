package agentv1

import (
	"net/http"
	"strings"
	"time"

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
	p, err := listings.ParseSearch(r.URL.Query())
	if err != nil {
		return err
	}
	page, err := a.Listings.Search(r.Context(), p)
	if err != nil {
		return err
	}
	return a.writeSearch(w, r, page)
}

func (a *API) writeSearch(w http.ResponseWriter, r *http.Request, page listings.SearchPage) error {
	views, err := a.views(r.Context(), actor(r), page.Listings)
	if err != nil {
		return err
	}
	out := searchResult{Listings: views, Total: page.Total}
	if page.Cursor != "" {
		out.Cursor = &page.Cursor
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

// similar is GET /v1/search/similar/{id}: active listings like this one.
func (a *API) similar(w http.ResponseWriter, r *http.Request) error {
	limit, err := listings.ParseLimit(r.URL.Query(), listings.DefaultSimilarLimit)
	if err != nil {
		return err
	}
	page, err := a.Listings.Similar(r.Context(), actor(r), r.PathValue("id"), limit)
	if err != nil {
		return err
	}
	return a.writeSearch(w, r, page)
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
	p, err := listings.ParsePriceCheck(r.URL.Query())
	if err != nil {
		return err
	}
	pc, err := a.Listings.PriceCheck(r.Context(), p)
	if err != nil {
		return err
	}
	out := priceCheck{Query: p.Text, Category: strOrNil(p.Category),
		Condition: strOrNil(strings.ToLower(strings.TrimSpace(r.URL.Query().Get("condition")))), ActiveCount: pc.Count,
		SoldCount: pc.SoldCount, RecentSales: make([]sale, len(pc.RecentSales))}
	if pc.Count > 0 {
		out.Min, out.Max, out.Median = &pc.Min, &pc.Max, &pc.Median
	}
	if pc.SoldCount > 0 {
		out.SoldMedian = &pc.SoldMedian
	}
	for i, s := range pc.RecentSales {
		out.RecentSales[i] = sale{ID: s.ListingID, Title: s.Title, Price: s.Price, Condition: conditionB(s.Condition),
			SoldAt: s.SoldAt}
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}
