package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/shipping"
)

// buyingRoutes adds the pages of browse and search, a listing, watch, offer, buy.
func (c *Console) buyingRoutes(rt *httpapi.Router) {
	rt.Handle("GET", "/search", httpapi.Public, c.guest(c.searchPage))
	rt.Handle("GET", "/watching", httpapi.Public, c.member(c.watchingPage))
	rt.Handle("GET", "/listings/{id}", httpapi.Public, c.guest(c.listingPage))
	rt.Handle("POST", "/listings/{id}/watch", httpapi.Public, c.member(c.watchListing))
	rt.Handle("POST", "/listings/{id}/unwatch", httpapi.Public, c.member(c.unwatchListing))
	rt.Handle("POST", "/listings/{id}/offer", httpapi.Public, c.member(c.makeOffer))
	rt.Handle("GET", "/listings/{id}/buy", httpapi.Public, c.member(c.buyPage))
	rt.Handle("POST", "/listings/{id}/buy", httpapi.Public, c.member(c.buyNow))
}

// listingCard is a listing as the cards and the listing page show it.
type listingCard struct{ *api.Listing }

// ConditionText is the listing's condition in words, "" when it has none.
func (l listingCard) ConditionText() string {
	if l.Condition == nil {
		return ""
	}
	return labelOf(conditions, *l.Condition)
}

// ShippingText is how the item reaches the buyer, in words.
func (l listingCard) ShippingText() string {
	cost := "shipping"
	if l.ShippingCost != nil {
		cost = "$" + shipping.FormatCents(*l.ShippingCost) + " shipping"
	}
	switch listings.ShippingType(l.ShippingType) {
	case listings.ShipFree:
		return "Free shipping"
	case listings.ShipFlatRate:
		return cost
	case listings.ShipBoth:
		return cost + ", or local pickup"
	case listings.ShipCalculated:
		return "Shipping calculated for your address at checkout"
	case listings.ShipLocalPickup:
		return "Local pickup only"
	}
	return l.ShippingType
}

// cardsOf are the listings of a page of views.
func cardsOf(p api.ListingPage) []listingCard {
	out := make([]listingCard, 0, len(p.Listings))
	for _, l := range p.Listings {
		if lv, ok := l.(api.ListingView); ok {
			out = append(out, listingCard{lv.Base()})
		}
	}
	return out
}

// searchLimit is the cards on a page of search results.
const searchLimit = 24

var (
	// "" is the API's default: relevance with text, else newest.
	searchSorts = []option{{Value: "", Label: "Best match"}, {Value: "newest", Label: "Newest first"},
		{Value: "price_asc", Label: "Price: low to high"}, {Value: "price_desc", Label: "Price: high to low"}}
	searchConditions = []option{{Value: "", Label: "Any condition"}, {Value: "new", Label: "New"},
		{Value: "like_new", Label: "Like new"}, {Value: "good", Label: "Good"}, {Value: "fair", Label: "Fair"},
		{Value: "poor", Label: "Poor"}}
)

// searchForm is the search as typed: prices in dollars and cents.
type searchForm struct {
	Q, Category, Condition, MinPrice, MaxPrice, Sort string
}

type searchData struct {
	Form              searchForm
	Sorts, Conditions []option
	Categories        []option
	Listings          cardGrid
	Searched          bool
	Number            int // the page's number, from 1
	Page              pager
	Error             *market.Error
}

// searchPage is GET /search: the search of GET /api/v1/listings, with the
// prices in dollars and cents, paged by the same cursor. The cursors of the
// pages before ("trail") ride in the links, so that "Previous" needs no
// server state.
func (c *Console) searchPage(v *visit) error {
	q := v.r.URL.Query()
	f := searchForm{Q: q.Get("q"), Category: q.Get("category"), Condition: q.Get("condition"),
		MinPrice: q.Get("minPrice"), MaxPrice: q.Get("maxPrice"), Sort: q.Get("sort")}
	d := searchData{Form: f, Sorts: choose(searchSorts, f.Sort), Conditions: choose(searchConditions, f.Condition), Number: 1,
		Page: pager{Label: "Result pages"}}
	var err error
	if d.Categories, d.Form.Category, err = c.categoryOptions(v, f.Category); err != nil {
		return err
	}
	f = d.Form
	d.Categories = choose(d.Categories, f.Category)
	cursor, trail, p, err := searchParams(q)
	if err == nil {
		var page api.ListingPage
		if page, err = c.Ops.ListingOps().Search(v.r.Context(), v.callerOrNil(), p); err == nil {
			d.Listings, d.Searched = cardGrid{Cards: cardsOf(page), Condition: true}, true
			d.Number = len(trail) + 1
			if cursor != "" {
				d.Number++
				if len(trail) > 0 {
					d.Page.Prev = f.url(trail[len(trail)-1], trail[:len(trail)-1])
				} else {
					d.Page.Prev = f.url("", nil)
				}
			}
			if page.Cursor != "" {
				next := trail
				if cursor != "" {
					next = append(next[:len(next):len(next)], cursor)
				}
				d.Page.Next = f.url(page.Cursor, next)
			}
		}
	}
	if err != nil {
		if d.Error = refusal(err); d.Error == nil {
			return err
		}
		return c.render(v, httpapi.Status(d.Error.Code), "search", d)
	}
	return c.render(v, http.StatusOK, "search", d)
}

// searchParams reads the console's search query into the API's: the
// dollar prices become the cents GET /listings takes, then
// listings.ParseSearch checks everything as it does there (the refusals
// name the console's fields, which have the API's names).
func searchParams(q url.Values) (cursor string, trail []string, p listings.SearchParams, err error) {
	var check market.Check
	in := url.Values{}
	for _, name := range []string{"q", "category", "sort", "cursor"} {
		if s := q.Get(name); s != "" {
			in.Set(name, s)
		}
	}
	in["condition"] = q["condition"]
	for _, name := range []struct{ field, label string }{{"minPrice", "Min price"}, {"maxPrice", "Max price"}} {
		if n := cents(&check, q, name.field, name.label); n != nil {
			in.Set(name.field, strconv.FormatInt(*n, 10))
		}
	}
	cursor = strings.ToLower(strings.TrimSpace(q.Get("cursor")))
	if s := q.Get("trail"); s != "" {
		trail = strings.Split(strings.ToLower(s), ",")
		for _, id := range trail {
			if !market.ValidID(id) {
				check.Add("trail", "must be the cursors of the pages before")
				break
			}
		}
	}
	if cursor == "" && trail != nil {
		check.Add("trail", "must come with a cursor")
	}
	if err := check.Err(); err != nil {
		return "", nil, p, err
	}
	p, err = listings.ParseSearch(in)
	if err != nil {
		return "", nil, p, err
	}
	p.Limit, p.NoTotal = searchLimit, true
	return cursor, trail, p, nil
}

// url is the search page of f at cursor, with the cursors of the pages
// before it.
func (f searchForm) url(cursor string, trail []string) string {
	q := url.Values{}
	for _, kv := range [][2]string{{"q", f.Q}, {"category", f.Category}, {"condition", f.Condition},
		{"minPrice", f.MinPrice}, {"maxPrice", f.MaxPrice}, {"sort", f.Sort}, {"cursor", cursor}} {
		if kv[1] != "" {
			q.Set(kv[0], kv[1])
		}
	}
	if len(trail) > 0 {
		q.Set("trail", strings.Join(trail, ","))
	}
	return "/search?" + q.Encode()
}

// categoryOptions are the categories to filter by: the two top levels of
// the tree (a category's search takes in everything under it), and the one
// asked for when it is deeper. current (a slug or, from a listing's link,
// an id) comes back as its slug, the options' value.
func (c *Console) categoryOptions(v *visit, current string) ([]option, string, error) {
	tree, _, err := c.Ops.ListingOps().Categories(v.r.Context())
	if err != nil {
		return nil, "", err
	}
	out := []option{{Value: "", Label: "Any category"}}
	want := strings.ToLower(strings.TrimSpace(current))
	var walk func([]api.Category)
	walk = func(cats []api.Category) {
		for _, cat := range cats {
			asked := want != "" && (cat.Slug == want || cat.ID == want)
			if asked {
				current = cat.Slug
			}
			if cat.Depth <= 1 || asked {
				out = append(out, option{Value: cat.Slug, Label: cat.Path})
			}
			walk(cat.Children)
		}
	}
	walk(tree)
	return out, current, nil
}

// callerOrNil is the signed-in person, or nil for a guest (the operations'
// anonymous caller).
func (v *visit) callerOrNil() *api.Caller {
	if v.user == nil {
		return nil
	}
	return v.caller()
}

// watchLimit is the cards on a page of watched listings.
const watchLimit = 24

type watchingData struct {
	Listings cardGrid
	Number   int // the page's number, from 1
	Page     pager
}

// watchingPage is GET /watching: the listings the person watches, most
// recently watched first, as GET /listings/watching/me lists them.
func (c *Console) watchingPage(v *visit) error {
	n := 1
	if s := v.r.URL.Query().Get("page"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 || n > 10000 {
			return market.Invalid(market.FieldError{Field: "page", Message: "must be a page number from 1 to 10000"})
		}
	}
	p, err := c.Ops.ListingOps().Watched(v.r.Context(), v.caller(), watchLimit, (n-1)*watchLimit)
	if err != nil {
		return err
	}
	d := watchingData{Listings: cardGrid{Cards: cardsOf(p), Condition: true}, Number: n,
		Page: pageOf(len(p.Listings), p.Total, watchLimit, (n-1)*watchLimit, func(off int) string {
			return "/watching?page=" + strconv.Itoa(off/watchLimit+1)
		})}
	d.Page.Label = "Watched pages"
	return c.render(v, http.StatusOK, "listings_watching", d)
}
