package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"marketplace/internal/testkit"
)

// orderScene is a paid order: a verified seller with a ship-from address
// sold an item at 25.00 with free shipping to a shopper's agent (fee 0.99,
// total 25.99); both are signed in to the console.
type orderScene struct {
	seller, buyer *testkit.User
	sellerB       *browser
	buyerB        *browser
	order         string
}

const orderTitle = `<script>x</script> teak side table`

func orderPaid(t *testing.T, s *testkit.Server, name string) orderScene {
	t.Helper()
	seller := s.VerifiedOwner(name + "seller")
	s.Do("PUT", "/api/v1/auth/me/address", map[string]any{"name": "Sam Seller", "line1": "400 Pine St", "city": "Seattle",
		"state": "WA", "zip": "98101", "country": "US"}, seller.Auth()).Want(t, http.StatusOK, "")
	listing := s.ListingWith(t, seller, "Mid-century teak side table, small, light wear", 2500, map[string]any{"title": orderTitle})
	buyer := s.NewShopper(name+"buyer", "pm_card_visa")
	o := s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": listing, "maxPrice": 2500,
		"shippingAddress": testkit.Address()}, buyer.Key.Auth()).Want(t, http.StatusCreated, "")
	return orderScene{seller: seller, buyer: buyer.User, sellerB: signIn(t, s, seller, "/orders"), buyerB: signIn(t, s, buyer.User, "/orders"),
		order: o.Data()["id"].(string)}
}

func orderAPIStatus(t *testing.T, s *testkit.Server, sc orderScene) any {
	t.Helper()
	return s.Do("GET", "/api/v1/orders/"+sc.order, nil, sc.buyer.Auth()).Want(t, http.StatusOK, "").Data()["status"]
}

const orderTitleEscaped = `&lt;script&gt;x&lt;/script&gt; teak side table`

// TestOrdersPages: both parties see the order in their lists and on its
// page, a stranger gets 404, a guest signs in first; the seller ships with
// a label, the buyer sees the tracking and confirms delivery; the
// seller's payouts show it.
func TestOrdersPages(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := orderPaid(t, s, "olist")
		link := `href="/orders/` + sc.order + `"`
		p := sc.buyerB.get("/orders").want(t, http.StatusOK, "<h1>Orders</h1>", orderTitleEscaped, link, "bought", "olistseller", "$25.99", "paid")
		if strings.Contains(p.body, "<script>x") {
			t.Fatal("the listing title is not escaped")
		}
		sc.sellerB.get("/orders").want(t, http.StatusOK, orderTitleEscaped, link, "sold", "olistbuyer", "$25.99")
		if p := sc.buyerB.get("/orders?role=seller").want(t, http.StatusOK, "No orders"); strings.Contains(p.body, sc.order) {
			t.Fatal("the buyer's purchase is listed among their sales")
		}
		sc.sellerB.get("/orders?role=seller&status=paid").want(t, http.StatusOK, link)
		sc.sellerB.get("/orders?role=seller&status=shipped").want(t, http.StatusOK, "No orders that are shipped")
		sc.sellerB.get("/orders?role=boss").want(t, http.StatusBadRequest, "must be buyer or seller")

		// The buyer's page: the fees in dollars and cents, the address, the
		// buyer's actions only.
		p = sc.buyerB.get("/orders/"+sc.order).want(t, http.StatusOK, orderTitleEscaped, "You bought this from olistseller",
			"$25.00", "$0.99", "$25.99", "1 Main St", "Portland, OR 97201", "Ordered", "Request a refund", "Open a dispute")
		if strings.Contains(p.body, ">Ship</button>") || strings.Contains(p.body, "Confirm delivery") || strings.Contains(p.body, "Commission") {
			t.Fatal("the buyer is offered the seller's actions, a delivery not shipped yet, or the seller's figures")
		}

		// A stranger: 404, for the page, the label and every action; a guest
		// signs in first.
		stranger := signUp(t, s, "Stranger", "ostranger@example.com")
		stranger.get("/orders/"+sc.order).want(t, http.StatusNotFound)
		stranger.get("/orders/"+sc.order+"/label").want(t, http.StatusNotFound)
		stranger.get("/orders")
		stranger.post("/orders/"+sc.order+"/cancel").want(t, http.StatusNotFound)
		stranger.post("/orders/"+sc.order+"/refund", "reason", "mine now").want(t, http.StatusNotFound)
		newBrowser(t, s).get("/orders/"+sc.order).redirect(t, "/signin?next=%2Forders%2F"+sc.order)
		newBrowser(t, s).get("/orders").redirect(t, "/signin?next=%2Forders")
		newBrowser(t, s).get("/payouts").redirect(t, "/signin?next=%2Fpayouts")

		// Wrong state and wrong side: the API's refusal, at its status, on the page.
		sc.buyerB.post("/orders/"+sc.order+"/delivered").want(t, http.StatusConflict, "INVALID_STATE", "cannot confirm delivery")
		sc.buyerB.post("/orders/"+sc.order+"/label").want(t, http.StatusForbidden, "FORBIDDEN")

		// CSRF: a forged or missing token changes nothing.
		for _, tok := range []string{"", "forged"} {
			sc.sellerB.do("POST", "/orders/"+sc.order+"/label", url.Values{"csrf": {tok}}).want(t, http.StatusForbidden, "did not come from this site")
		}
		if st := orderAPIStatus(t, s, sc); st != "paid" {
			t.Fatalf("after forged forms the order is %v", st)
		}

		// The seller ships with a label and prints it.
		sc.sellerB.get("/orders/"+sc.order).want(t, http.StatusOK, "You sold this to olistbuyer", ">Ship</button>", "Cancel order",
			"Commission", "$0.75", "1 Main St")
		sc.sellerB.post("/orders/"+sc.order+"/label").redirect(t, "/orders/"+sc.order)
		tracking := s.Do("GET", "/api/v1/orders/"+sc.order, nil, sc.seller.Auth()).Want(t, http.StatusOK, "").Data()["trackingNumber"].(string)
		p = sc.sellerB.get("/orders/"+sc.order).want(t, http.StatusOK, "shipped", "Print the label (PDF)", tracking, "Shipping label bought")
		if strings.Contains(p.body, ">Ship</button>") || strings.Contains(p.body, "Cancel order") {
			t.Fatal("a shipped order still offers shipping or cancelling")
		}
		pdf := sc.sellerB.get("/orders/"+sc.order+"/label").want(t, http.StatusOK, "%PDF-", tracking)
		if ct := pdf.header.Get("Content-Type"); ct != "application/pdf" {
			t.Fatalf("label Content-Type %q", ct)
		}
		sc.buyerB.get("/orders/"+sc.order+"/label").want(t, http.StatusForbidden)
		// Cancelling is refused now, as on the API; shipping again answers
		// the order unchanged.
		sc.sellerB.post("/orders/"+sc.order+"/cancel").want(t, http.StatusConflict, "INVALID_STATE", "cannot cancel an order that is shipped")
		sc.sellerB.post("/orders/"+sc.order+"/ship", "carrier", "ups", "trackingNumber", "1Z999AA10123456784").redirect(t, "/orders/"+sc.order)
		sc.sellerB.get("/orders/"+sc.order).want(t, http.StatusOK, tracking)

		// The buyer sees the tracking in the timeline and confirms delivery.
		p = sc.buyerB.get("/orders/"+sc.order).want(t, http.StatusOK, "Timeline", "Shipped: ", "tracking "+tracking, "Confirm delivery")
		if strings.Contains(p.body, "Print the label") {
			t.Fatal("the buyer is offered the seller's label")
		}
		sc.buyerB.post("/orders/"+sc.order+"/delivered").redirect(t, "/orders/"+sc.order)
		sc.buyerB.get("/orders/"+sc.order).want(t, http.StatusOK, "delivered", "Delivered")
		if st := orderAPIStatus(t, s, sc); st != "delivered" {
			t.Fatalf("after Confirm delivery the order is %v", st)
		}

		// The seller's payouts: the account is verified, the sale waits for
		// the hold period (the item less commission: the platform paid the label).
		sc.sellerB.get("/payouts").want(t, http.StatusOK, "<h1>Payouts</h1>", "verified", "Delivered, in the hold period", "$24.25",
			orderTitleEscaped, "pending")
		if p := sc.buyerB.get("/payouts").want(t, http.StatusOK, "No sales yet"); strings.Contains(p.body, sc.order) {
			t.Fatal("the buyer's purchase is on their payouts page")
		}
	})
}

// orderRefundID finds the refund the seller's refund forms answer.
const orderRefundID = `name="refundId" value="([0-9a-f-]+)"`

// TestOrdersRefundsAndDisputes: the buyer asks for a refund, the seller
// declines and then approves a smaller one; the buyer opens a dispute and
// the seller answers; the seller ships by hand, and cancels another order.
func TestOrdersRefundsAndDisputes(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		sc := orderPaid(t, s, "orefund")
		page := "/orders/" + sc.order

		// A bad tracking number is refused with the field; a good one ships.
		sc.sellerB.get(page)
		sc.sellerB.post(page+"/ship", "carrier", "ups", "trackingNumber", "1Z999AA10123456785").want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		sc.sellerB.post(page+"/ship", "carrier", "ups", "trackingNumber", "1Z999AA10123456784").redirect(t, page)
		sc.buyerB.get(page).want(t, http.StatusOK, "Shipped: UPS, tracking 1Z999AA10123456784", "track the parcel")

		// The refund request, in dollars and cents; a bad amount is refused.
		sc.buyerB.get(page)
		sc.buyerB.post(page+"/refund", "reason", "scratched", "amount", "5.001").want(t, http.StatusBadRequest, "Amount must be an amount in dollars and cents")
		sc.buyerB.post(page+"/refund", "reason", "", "amount", "5.00").want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		sc.buyerB.post(page+"/refund", "reason", `<b>scratched</b> top`, "amount", "5.00").redirect(t, page)
		p := sc.buyerB.get(page).want(t, http.StatusOK, "Refund requested: $5.00", "&lt;b&gt;scratched&lt;/b&gt; top", "requested")
		if strings.Contains(p.body, `id="r-reason"`) {
			t.Fatal("a second refund request is offered while one is open")
		}
		sc.buyerB.post(page+"/refund", "reason", "again").want(t, http.StatusConflict, "INVALID_STATE", "open already")

		// The seller declines, then the buyer asks again and the seller
		// approves less.
		p = sc.sellerB.get(page).want(t, http.StatusOK, "The buyer asks for a refund of $5.00", "Approve refund", "Decline refund")
		refund := p.find(t, orderRefundID, "refund form")
		sc.buyerB.post(page+"/refund-answer", "refundId", refund, "decision", "approve").want(t, http.StatusForbidden, "FORBIDDEN")
		sc.sellerB.post(page+"/refund-answer", "refundId", refund, "decision", "decline", "message", "it was like that").redirect(t, page)
		sc.buyerB.get(page).want(t, http.StatusOK, "Refund declined", "it was like that")
		sc.buyerB.post(page+"/refund", "reason", "still scratched", "amount", "5").redirect(t, page)
		refund = sc.sellerB.get(page).find(t, orderRefundID, "refund form for the second request")
		sc.sellerB.post(page+"/refund-answer", "refundId", refund, "decision", "approve", "amount", "6.00").want(t, http.StatusBadRequest)
		sc.sellerB.post(page+"/refund-answer", "refundId", refund, "decision", "approve", "amount", "3.00").redirect(t, page)
		sc.buyerB.get(page).want(t, http.StatusOK, "Refund approved: $3.00", "Refunded")
		refunds := s.Do("GET", "/api/v1/purchases/"+sc.order+"/refunds", nil, sc.buyer.Auth()).Want(t, http.StatusOK, "").List()
		if len(refunds) != 2 || refunds[1].(map[string]any)["amount"].(float64) != 300 {
			t.Fatalf("refunds after the answers: %v", refunds)
		}

		// The dispute: a description is required; markup is shown as text.
		sc.buyerB.post(page+"/dispute", "reason", "not_as_described", "description", " ").want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		sc.buyerB.post(page+"/dispute", "reason", "not_as_described", "description", `<script>alert(1)</script> not teak`).redirect(t, page)
		p = sc.buyerB.get(page).want(t, http.StatusOK, "Dispute opened", "disputed", "&lt;script&gt;alert(1)&lt;/script&gt; not teak")
		if strings.Contains(p.body, "<script>alert(1)") {
			t.Fatal("the dispute description is not escaped")
		}
		sc.buyerB.post(page+"/dispute", "reason", "other", "description", "twice").want(t, http.StatusConflict, "INVALID_STATE")
		p = sc.sellerB.get(page).want(t, http.StatusOK, "Answer the dispute")
		dispute := p.find(t, `name="disputeId" value="([0-9a-f-]+)"`, "dispute answer form")
		sc.buyerB.post(page+"/dispute-response", "disputeId", dispute, "response", "I am the buyer").want(t, http.StatusForbidden, "FORBIDDEN")
		sc.sellerB.post(page+"/dispute-response", "disputeId", dispute, "response", "It is solid teak.").redirect(t, page)
		sc.buyerB.get(page).want(t, http.StatusOK, "The seller says", "It is solid teak.", "seller_responded")
		if st := s.Do("GET", "/api/v1/disputes/"+dispute, nil, sc.seller.Auth()).Want(t, http.StatusOK, "").Data()["status"]; st != "seller_responded" {
			t.Fatalf("the dispute is %v", st)
		}

		// Another order of the same seller: cancelled before shipping, and
		// this order's dispute answered from that order's page is not found.
		other := orderPaid(t, s, "ocancel")
		sc.sellerB.post("/orders/"+other.order+"/dispute-response", "disputeId", dispute, "response", "x").want(t, http.StatusNotFound)
		other.sellerB.get("/orders/" + other.order)
		other.sellerB.post("/orders/"+other.order+"/cancel", "reason", "broke it").redirect(t, "/orders/"+other.order)
		other.buyerB.get("/orders/"+other.order).want(t, http.StatusOK, "cancelled", "Cancelled: broke it")
		other.sellerB.post("/orders/"+other.order+"/cancel").redirect(t, "/orders/"+other.order) // done before: answered again
		other.buyerB.post("/orders/"+other.order+"/refund", "reason", "no").want(t, http.StatusConflict, "INVALID_STATE")
	})
}

// TestOrdersPayoutAccount: a seller without a payout account opens one on
// the payouts page and is sent to the processor's verification.
func TestOrdersPayoutAccount(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		b := signUp(t, s, "Newseller", "opayout@example.com")
		b.get("/payouts").want(t, http.StatusOK, "You have no payout account yet", "Set up payouts", "No sales yet")
		b.do("POST", "/payouts/connect", url.Values{}).want(t, http.StatusForbidden)
		b.post("/payouts/connect").redirect(t, "/payouts")
		p := b.get("/payouts").want(t, http.StatusOK, "pending", "Verify your identity")
		verify := p.find(t, `href="([^"]+)">Verify your identity`, "verification link")
		s.Do("POST", s.Path(strings.ReplaceAll(verify, "&amp;", "&")), nil).Want(t, http.StatusOK, "")
		if p := b.get("/payouts").want(t, http.StatusOK, "verified", "payouts enabled"); strings.Contains(p.body, "Verify your identity") {
			t.Fatal("a verified account is still sent to verify")
		}
		b.post("/payouts/connect").redirect(t, "/payouts") // the account open is kept
	})
}
