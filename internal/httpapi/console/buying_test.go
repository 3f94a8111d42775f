package console_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"marketplace/internal/testkit"
)

// buyListing makes an active listing of seller's titled title (set after
// the AI step, so that the tests know it), at price cents.
func buyListing(t *testing.T, s *testkit.Server, seller *testkit.User, title string, price int64, extra map[string]any) string {
	t.Helper()
	id := s.ListingWith(t, seller, title, price, extra)
	s.Do("PATCH", "/api/v1/listings/"+id, map[string]any{"title": title}, seller.Auth()).Want(t, http.StatusOK, "")
	return id
}

// before fails unless a comes before b in the page.
func (p page) before(t *testing.T, a, b string) {
	t.Helper()
	i, j := strings.Index(p.body, a), strings.Index(p.body, b)
	if i < 0 || j < 0 || i > j {
		t.Fatalf("want %q (at %d) before %q (at %d) in the page:\n%s", a, i, b, j, p.body)
	}
}

var hrefOf = regexp.MustCompile(`href="(/search\?[^"]+)" rel="(prev|next)"`)

// pagerLink is the page's Previous or Next link ("prev", "next"), "" when
// it has none.
func (p page) pagerLink(rel string) string {
	for _, m := range hrefOf.FindAllStringSubmatch(p.body, -1) {
		if m[2] == rel {
			return strings.ReplaceAll(m[1], "&amp;", "&")
		}
	}
	return ""
}

// TestBuyingSearch: text, filters in dollars and cents, sort and paging on
// GET /search, for a guest as for a member; a bad filter is the API's
// refusal on the page.
func TestBuyingSearch(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("searchseller")
		telescope := buyListing(t, s, seller, "Brass telescope on a tripod", 5000, nil)
		compass := buyListing(t, s, seller, "Brass pocket compass", 2000, map[string]any{"condition": "like_new"})
		buyListing(t, s, seller, "Oak bookshelf with five shelves", 8000, nil)

		g := newBrowser(t, s)
		p := g.get("/search?q=brass").want(t, http.StatusOK, "Brass telescope on a tripod", "Brass pocket compass",
			`href="/listings/`+telescope+`"`, `href="/listings/`+compass+`"`, "$50.00", "$20.00", "Like new", "by searchseller",
			"/thumbnail", `value="brass"`)
		if strings.Contains(p.body, "Oak bookshelf") {
			t.Fatal("a search for brass found the bookshelf")
		}
		// Filters: prices in dollars, condition, sort.
		p = g.get("/search?q=brass&maxPrice=30.00").want(t, http.StatusOK, "Brass pocket compass", `value="30.00"`)
		if strings.Contains(p.body, "Brass telescope") {
			t.Fatal("maxPrice 30.00 kept the $50 telescope")
		}
		p = g.get("/search?q=brass&minPrice=20.01").want(t, http.StatusOK, "Brass telescope")
		if strings.Contains(p.body, "Brass pocket compass") {
			t.Fatal("minPrice 20.01 kept the $20 compass")
		}
		p = g.get("/search?condition=like_new").want(t, http.StatusOK, "Brass pocket compass", `<option value="like_new" selected>`)
		if strings.Contains(p.body, "Brass telescope") {
			t.Fatal("condition like_new kept a listing in good condition")
		}
		g.get("/search?q=brass&sort=price_asc").before(t, "Brass pocket compass", "Brass telescope")
		g.get("/search?q=brass&sort=price_desc").want(t, http.StatusOK, `<option value="price_desc" selected>`).
			before(t, "Brass telescope", "Brass pocket compass")
		// Refusals name the field, at the API's status.
		g.get("/search?minPrice=abc").want(t, http.StatusBadRequest, "minPrice", "Min price must be an amount in dollars and cents")
		g.get("/search?minPrice=50&maxPrice=10").want(t, http.StatusBadRequest, "minPrice", "must not be greater than the maximum price")
		g.get("/search?sort=cheapest").want(t, http.StatusBadRequest, "sort", "must be one of")
		g.get("/search?category=no-such-category").want(t, http.StatusBadRequest, "no category has this slug or id")
		g.get("/search?cursor=nonsense").want(t, http.StatusBadRequest, "cursor")

		// Paging: 25 more brass listings make a second page; the links keep
		// the filters, and Previous goes back to the first page.
		for i := range 25 {
			buyListing(t, s, seller, fmt.Sprintf("Brass candlestick number %d", i+1), int64(1000+i), nil)
		}
		member := signIn(t, s, seller, "/search")
		p = member.get("/search?q=brass&sort=price_asc&maxPrice=100").want(t, http.StatusOK, "Brass candlestick number 1<", "Next page")
		if p.pagerLink("prev") != "" || strings.Contains(p.body, "Brass telescope") {
			t.Fatalf("the first page has a Previous link or the 28th-cheapest listing:\n%s", p.body)
		}
		next := p.pagerLink("next")
		for _, keep := range []string{"q=brass", "sort=price_asc", "maxPrice=100", "cursor="} {
			if !strings.Contains(next, keep) {
				t.Fatalf("the Next link %q lacks %q", next, keep)
			}
		}
		p = member.get(next).want(t, http.StatusOK, "page 2", "Brass pocket compass", "Brass telescope")
		if strings.Contains(p.body, "Brass candlestick number 1<") || p.pagerLink("next") != "" {
			t.Fatalf("page 2 repeats page 1 or has a Next link:\n%s", p.body)
		}
		prev := p.pagerLink("prev")
		if strings.Contains(prev, "cursor=") || !strings.Contains(prev, "maxPrice=100") {
			t.Fatalf("Previous from page 2 is %q, want page 1 with the filters", prev)
		}
		member.get(prev).want(t, http.StatusOK, "Brass candlestick number 1<")
	})
}

// TestBuyingListingPage: the listing page shows its fields escaped, its
// seller and photos; a guest is sent to sign in; another seller's hidden
// listing is 404; the seller sees an edit link instead of buying.
func TestBuyingListingPage(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("pageseller")
		id := buyListing(t, s, seller, `<script>x</script> lamp`, 4250, map[string]any{"shippingType": "flat_rate", "shippingCost": 799})
		s.Do("PATCH", "/api/v1/listings/"+id, map[string]any{"description": "A lamp.\n<img src=x onerror=alert(1)>"}, seller.Auth()).
			Want(t, http.StatusOK, "")

		g := newBrowser(t, s)
		p := g.get("/listings/"+id).want(t, http.StatusOK, "&lt;script&gt;x&lt;/script&gt; lamp", "&lt;img src=x onerror=alert(1)&gt;",
			"$42.50", "$7.99 shipping", "Good", "pageseller", "/thumbnail", `alt="Photo 1 of &lt;script&gt;x&lt;/script&gt; lamp, full size"`,
			`href="/signin?next=/listings/`+id+`"`, "Buy now", "Make an offer", "Watch")
		if strings.Contains(p.body, "<script>x") || strings.Contains(p.body, "<img src=x") {
			t.Fatal("the listing's text is not escaped")
		}
		if strings.Contains(p.body, `action="/listings/`+id+`/buy"`) {
			t.Fatal("a guest got the Buy now form")
		}
		g.get("/search?q=lamp").want(t, http.StatusOK, "&lt;script&gt;x&lt;/script&gt; lamp")
		// Its category links to a search of that category, chosen in the form.
		cat := p.find(t, `href="/search\?category=([0-9a-f-]+)"`, "category link")
		g.get("/search?category="+cat).want(t, http.StatusOK, "&lt;script&gt;x&lt;/script&gt; lamp", `" selected>`)
		// The members' pages send a guest to sign in, and back.
		g.get("/listings/"+id+"/buy").redirect(t, "/signin?next="+url.QueryEscape("/listings/"+id+"/buy"))
		g.get("/watching").redirect(t, "/signin?next=%2Fwatching")
		g.get("/listings/" + id)
		g.post("/listings/"+id+"/watch").want(t, http.StatusUnauthorized)
		g.get("/signin?next=/listings/"+id).want(t, http.StatusOK, `value="/listings/`+id+`"`)

		// The seller: an edit link, no buying.
		sb := signIn(t, s, seller, "/search")
		p = sb.get("/listings/"+id).want(t, http.StatusOK, `href="/selling/`+id+`"`)
		for _, no := range []string{`/buy"`, `/watch"`, `/offer"`} {
			if strings.Contains(p.body, no) {
				t.Fatalf("the seller's own listing offers %s", no)
			}
		}
		// Archived, it is the seller's still, and 404 to anyone else.
		s.Do("DELETE", "/api/v1/listings/"+id, nil, seller.Auth()).Want(t, http.StatusOK, "")
		sb.get("/listings/"+id).want(t, http.StatusOK, "archived", `href="/selling/`+id+`"`)
		g.get("/listings/"+id).want(t, http.StatusNotFound, "Not found")
		other := signIn(t, s, s.Register("stranger"), "/search")
		other.get("/listings/"+id).want(t, http.StatusNotFound)
		other.get("/listings/"+id+"/buy").want(t, http.StatusNotFound)
		other.get("/search")
		other.post("/listings/"+id+"/watch").want(t, http.StatusNotFound)
		other.post("/listings/"+id+"/offer", "offerPrice", "10.00").want(t, http.StatusNotFound)
		other.post("/listings/"+id+"/buy").want(t, http.StatusNotFound)
		other.get("/listings/not-an-id").want(t, http.StatusNotFound)
	})
}

// TestBuyingWatchAndOffer: Watch and Unwatch, the watching page, making
// an offer (a bad amount refused with its field named), CSRF on each.
func TestBuyingWatchAndOffer(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("offerseller")
		id := buyListing(t, s, seller, "Walnut chess set", 6000, map[string]any{"acceptOffers": true})
		buyer := s.Register("offerbuyer")
		b := signIn(t, s, buyer, "/search")

		// CSRF first: nothing changes without a valid token.
		b.get("/listings/"+id).want(t, http.StatusOK, ">Watch<", "Make an offer", "Your offer")
		for _, path := range []string{"/watch", "/offer", "/buy"} {
			b.do("POST", "/listings/"+id+path, url.Values{"csrf": {"forged"}, "offerPrice": {"50.00"}}).
				want(t, http.StatusForbidden, "did not come from this site")
		}
		if st := s.Do("GET", "/api/v1/listings/"+id+"/watching", nil, buyer.Auth()).Want(t, http.StatusOK, "").Data(); st["watching"] != false {
			t.Fatal("a forged Watch watched")
		}
		if n := len(s.Do("GET", "/api/v1/offers/buyer/me", nil, buyer.Auth()).Want(t, http.StatusOK, "").List()); n != 0 {
			t.Fatalf("a forged offer made %d offers", n)
		}
		if n := len(s.Do("GET", "/api/v1/purchases/buyer", nil, buyer.Auth()).Want(t, http.StatusOK, "").List()); n != 0 {
			t.Fatalf("a forged Buy now made %d orders", n)
		}

		// Watch, see it on Watching, unwatch.
		b.get("/watching").want(t, http.StatusOK, "You are not watching anything")
		b.get("/listings/" + id)
		b.post("/listings/"+id+"/watch").redirect(t, "/listings/"+id)
		b.get("/listings/"+id).want(t, http.StatusOK, ">Unwatch<", "1 watching")
		b.get("/watching").want(t, http.StatusOK, "Walnut chess set", `href="/listings/`+id+`"`, "$60.00")
		b.post("/listings/"+id+"/unwatch").redirect(t, "/listings/"+id)
		b.get("/listings/"+id).want(t, http.StatusOK, ">Watch<")
		if p := b.get("/watching"); strings.Contains(p.body, "Walnut chess set") {
			t.Fatal("an unwatched listing is still on Watching")
		}

		// A bad amount is refused with the field named, and kept in the form.
		b.get("/listings/" + id)
		b.post("/listings/"+id+"/offer", "offerPrice", "12.345", "message", "hi").
			want(t, http.StatusBadRequest, "offerPrice", "Your offer must be an amount in dollars and cents", `value="12.345"`, ">hi</textarea>")
		b.post("/listings/"+id+"/offer", "offerPrice", "", "message", "hi").want(t, http.StatusBadRequest, "offerPrice")
		b.post("/listings/"+id+"/offer", "offerPrice", "75.00").want(t, http.StatusBadRequest, "offerPrice")
		// A good one is made, as the API shows it.
		b.post("/listings/"+id+"/offer", "offerPrice", "45.50", "message", "<b>cash</b> today?", "autoPurchase", "on").
			redirect(t, "/listings/"+id)
		p := b.get("/listings/"+id).want(t, http.StatusOK, "Your offer", "$45.50, waiting for the seller")
		if strings.Contains(p.body, `action="/listings/`+id+`/offer"`) {
			t.Fatal("the offer form is still there beside the open offer")
		}
		os := s.Do("GET", "/api/v1/offers/buyer/me", nil, buyer.Auth()).Want(t, http.StatusOK, "").List()
		if len(os) != 1 {
			t.Fatalf("%d offers, want 1", len(os))
		}
		o := os[0].(map[string]any)
		if o["offerPrice"] != 4550.0 || o["message"] != "<b>cash</b> today?" || o["listingId"] != id || o["autoPurchaseOnAccept"] != true {
			t.Fatalf("the offer is %v", o)
		}
		// A second one is the API's refusal, on the page.
		b.post("/listings/"+id+"/offer", "offerPrice", "46.00").want(t, http.StatusConflict, "already have an open offer")
		// The seller's counter shows.
		s.Do("POST", "/api/v1/offers/"+o["id"].(string)+"/counter", map[string]any{"counterPrice": 5500}, seller.Auth()).
			Want(t, http.StatusOK, "")
		b.get("/listings/"+id).want(t, http.StatusOK, "The seller countered with $55.00")
	})
}

var checkoutPath = regexp.MustCompile(`^/checkout/([0-9a-f-]{36})$`)

// checkoutOf is the order id of a redirect to the hosted checkout page.
func (p page) checkoutOf(t *testing.T) string {
	t.Helper()
	m := checkoutPath.FindStringSubmatch(p.header.Get("Location"))
	if p.status != http.StatusSeeOther || m == nil {
		t.Fatalf("answer %d to %q, want 303 to the checkout page; body:\n%s", p.status, p.header.Get("Location"), p.body)
	}
	return m[1]
}

// TestBuyingBuyNow: Buy now reserves the listing and sends the browser to
// the hosted checkout page, which the sandbox card pays: with an address
// typed on the buy page, and straight away with a saved default address.
func TestBuyingBuyNow(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("buyseller")
		first := buyListing(t, s, seller, "Copper kettle", 3000, map[string]any{"shippingType": "flat_rate", "shippingCost": 500})
		second := buyListing(t, s, seller, "Enamel teapot", 2000, nil)
		buyer := s.Register("buynowbuyer")
		b := signIn(t, s, buyer, "/search")

		// No saved address: the buy page asks for one.
		b.get("/listings/" + first)
		b.post("/listings/"+first+"/buy", "expectedPrice", "3000").redirect(t, "/listings/"+first+"/buy?expectedPrice=3000")
		b.get("/listings/"+first+"/buy?expectedPrice=3000").want(t, http.StatusOK, "Full name", "Street address", "City", "State",
			"Postal code", "Country", `name="expectedPrice" value="3000"`, "$5.00 shipping")
		addr := []string{"address", "form", "expectedPrice", "3000", "name", "Ada Buyer", "line1", "1 Main St", "city", "Portland",
			"state", "OR", "zip", "97201", "country", "US"}
		bad := append(append([]string{}, addr...), "city", "", "zip", "123")
		b.post("/listings/"+first+"/buy", bad...).want(t, http.StatusBadRequest, "shippingAddress.city", "shippingAddress.zip", `value="Ada Buyer"`)
		// A price that changed since the page was read is refused.
		stale := append(append([]string{}, addr...), "expectedPrice", "2500")
		b.post("/listings/"+first+"/buy", stale...).want(t, http.StatusConflict, "the price is now 3000 cents")
		order := b.post("/listings/"+first+"/buy", addr...).checkoutOf(t)
		// Buy now again goes back to the same checkout.
		b.get("/listings/" + first)
		if again := b.post("/listings/"+first+"/buy", addr...).checkoutOf(t); again != order {
			t.Fatalf("a second Buy now went to checkout %s, want %s", again, order)
		}
		b.get("/checkout/"+order).want(t, http.StatusOK, "Copper kettle", "$5.00", "cardNumber")
		b.do("POST", "/checkout/"+order, url.Values{"cardNumber": {"4242 4242 4242 4242"}}).want(t, http.StatusOK, "Payment received")
		o := s.Do("GET", "/api/v1/orders/"+order, nil, buyer.Auth()).Want(t, http.StatusOK, "").Data()
		if o["status"] != "paid" || o["listingId"] != first || testkit.Num(t, testkit.Obj(t, o, "fees"), "itemPrice") != 3000 {
			t.Fatalf("the order is %v", o)
		}
		b.get("/listings/"+first).want(t, http.StatusOK, "This listing is sold")

		// A saved default address: Buy now goes straight to checkout.
		s.Do("POST", "/api/v1/addresses", testkit.Body(testkit.Address(), "isDefault", true), buyer.Auth()).Want(t, http.StatusCreated, "")
		b.get("/listings/"+second+"/buy").want(t, http.StatusOK, `value="1 Main St"`, `value="Portland"`)
		b.get("/listings/" + second)
		order2 := b.post("/listings/"+second+"/buy", "expectedPrice", "2000").checkoutOf(t)
		b.do("POST", "/checkout/"+order2, url.Values{"cardNumber": {"4242424242424242"}}).want(t, http.StatusOK, "Payment received")
		o = s.Do("GET", "/api/v1/orders/"+order2, nil, buyer.Auth()).Want(t, http.StatusOK, "").Data()
		if o["status"] != "paid" || testkit.Obj(t, o, "shippingAddress")["city"] != "Portland" {
			t.Fatalf("the order is %v", o)
		}
		// Calculated shipping: the rates quoted for the address to choose
		// from, then checkout at the chosen one.
		third := buyListing(t, s, seller, "Cast iron skillet", 2500, map[string]any{"shippingType": "calculated"})
		b.get("/listings/" + third)
		p := b.post("/listings/"+third+"/buy", "expectedPrice", "2500").want(t, http.StatusOK, "Shipping rate", `value="Portland"`)
		rate := p.find(t, `name="shippingRateId" value="([^"]+)" required checked`, "rate to choose")
		order3 := b.post("/listings/"+third+"/buy", append(addr, "expectedPrice", "2500", "shippingRateId", rate)...).checkoutOf(t)
		o = s.Do("GET", "/api/v1/orders/"+order3, nil, buyer.Auth()).Want(t, http.StatusOK, "").Data()
		if testkit.Num(t, testkit.Obj(t, o, "fees"), "shippingCost") <= 0 || o["status"] != "pending_payment" {
			t.Fatalf("the calculated-shipping order is %v", o)
		}

		// Sold now: Buy now is the API's refusal.
		b.get("/listings/" + second)
		b.post("/listings/"+second+"/buy").want(t, http.StatusConflict, "you already bought this listing")
	})
}
