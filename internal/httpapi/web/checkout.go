package web

import (
	"errors"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/orders"
	"marketplace/internal/shipping"
)

// Checkout serves the hosted payment page of human purchases. With the
// sandbox processor it is a card form (CONTRACT.md section 10: 4242... pays,
// 4000000000000002 declines); with Stripe it mounts Stripe Elements on the
// payment's client secret.
type Checkout struct {
	Orders         *orders.Service
	PublishableKey string
}

// Register adds GET and POST of the checkout page.
func (c *Checkout) Register(rt *httpapi.Router) {
	rt = rt.In("purchases")
	p := strings.TrimSuffix(orders.CheckoutPath, "/")
	rt.Handle("GET", p+"/{orderId}", httpapi.Public, c.page)
	rt.Handle("POST", p+"/{orderId}", httpapi.Public, c.pay)
}

var checkoutPages = template.Must(template.Must(pages.Clone()).Parse(`
{{define "checkout"}}{{template "head" "Checkout"}}
<h1>Pay for your order</h1>
<p><strong>{{.Title}}</strong></p>
<table><tr><td>Item</td><td>{{.Item}}</td></tr><tr><td>Shipping</td><td>{{.Shipping}}</td></tr>
<tr><td>Service fee</td><td>{{.Fee}}</td></tr><tr><td><strong>Total</strong></td><td><strong>{{.Total}}</strong></td></tr></table>
{{if .Message}}<p class="note">{{.Message}}</p>{{end}}
{{if eq .Status "pending_payment"}}
{{if eq .Processor "stripe"}}
<form id="pay"><div id="card"></div><button type="submit">Pay {{.Total}}</button></form>
<script src="https://js.stripe.com/v3/"></script>
<script>
const stripe = Stripe({{.PublishableKey}}); const elements = stripe.elements({clientSecret: {{.ClientSecret}}});
const card = elements.create("payment"); card.mount("#card");
document.getElementById("pay").addEventListener("submit", async (e) => { e.preventDefault();
  await stripe.confirmPayment({elements, confirmParams: {return_url: location.href}}); });
</script>
{{else}}
<p class="note">Sandbox: this page stands in for the payment processor's. Card 4242 4242 4242 4242 pays; 4000 0000 0000 0002 is declined.</p>
<form method="post"><label>Card number <input name="cardNumber" inputmode="numeric" autocomplete="cc-number" required></label>
<button type="submit">Pay {{.Total}}</button></form>
{{end}}
<p>This checkout holds the item until {{.ExpiresAt}}.</p>
{{else}}<p>This order is <strong>{{.Status}}</strong>.</p>{{end}}
</body></html>{{end}}
`))

type checkoutData struct {
	Title, Item, Shipping, Fee, Total string
	Status, Processor, Message        string
	PublishableKey, ClientSecret      string
	ExpiresAt                         string
}

func dollars(cents int64) string { return "$" + shipping.FormatCents(cents) }

// stripeCSP adds what Stripe Elements needs: its script, frames and API.
const stripeCSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; script-src https://js.stripe.com 'unsafe-inline'; " +
	"frame-src https://js.stripe.com https://hooks.stripe.com; connect-src https://api.stripe.com"

func (c *Checkout) data(w http.ResponseWriter, p *orders.CheckoutPage, message string) checkoutData {
	if p.Processor == "stripe" {
		w.Header().Set("Content-Security-Policy", stripeCSP)
	}
	o := p.Order
	d := checkoutData{Title: o.ListingTitle, Item: dollars(o.Fees.ItemPrice), Shipping: dollars(o.Fees.ShippingCost),
		Fee: dollars(o.Fees.ServiceFee), Total: dollars(o.Fees.TotalCharged), Status: string(o.Status), Processor: p.Processor,
		Message: message, PublishableKey: c.PublishableKey, ClientSecret: p.ClientSecret}
	if o.ReservedUntil != nil {
		d.ExpiresAt = o.ReservedUntil.Format("15:04 MST, 2 Jan 2006")
	}
	return d
}

// checkoutView is the page's JSON answer; the fields are in the order of
// the map it replaces.
type checkoutView struct {
	ExpiresAt    *time.Time `json:"expiresAt" doc:"When the reservation ends; null once paid."`
	OrderID      string     `json:"orderId"`
	Status       string     `json:"status" ref:"OrderStatus"`
	TotalCharged int64      `json:"totalCharged"`
}

func checkoutJSON(o *orders.Order) checkoutView {
	return checkoutView{OrderID: o.ID, Status: string(o.Status), TotalCharged: o.Fees.TotalCharged, ExpiresAt: o.ReservedUntil}
}

func (c *Checkout) page(w http.ResponseWriter, r *http.Request) error {
	p, err := c.Orders.CheckoutOf(r.Context(), r.PathValue("orderId"))
	if err != nil {
		return err
	}
	if !httpapi.WantsHTML(r) {
		return httpapi.OK(w, r, http.StatusOK, checkoutJSON(p.Order))
	}
	return renderStatus(w, http.StatusOK, checkoutPages, "checkout", c.data(w, p, ""))
}

// pay takes the card number as a form field or JSON {cardNumber}.
func (c *Checkout) pay(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("orderId")
	httpapi.Entity(r, "order", id)
	card, err := cardNumber(r)
	if err != nil {
		return err
	}
	o, payErr := c.Orders.PayCheckout(r.Context(), id, card)
	if !httpapi.WantsHTML(r) {
		if payErr != nil {
			return payErr
		}
		return httpapi.OK(w, r, http.StatusOK, checkoutJSON(o))
	}
	p, err := c.Orders.CheckoutOf(r.Context(), id)
	if err != nil {
		return err
	}
	msg := "Payment received. You can close this page."
	status := http.StatusOK
	if payErr != nil {
		e := market.ErrorOf(payErr)
		msg, status = e.Message, httpapi.Status(e.Code)
	}
	return renderStatus(w, status, checkoutPages, "checkout", c.data(w, p, msg))
}

func cardNumber(r *http.Request) (string, error) {
	raw, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, 64<<10))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return "", market.Errorf(market.CodePayloadTooLarge, "the request body is larger than 64 KiB")
		}
		return "", market.Invalid(market.FieldError{Field: "cardNumber", Message: "the body could not be read"})
	}
	var card string
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		var b struct {
			CardNumber string `json:"cardNumber"`
		}
		if err := httpapi.DecodeBytes(raw, &b); err != nil {
			return "", err
		}
		card = b.CardNumber
	} else {
		v, err := url.ParseQuery(string(raw))
		if err != nil {
			return "", market.Invalid(market.FieldError{Field: "cardNumber", Message: "send a form or JSON body with cardNumber"})
		}
		card = v.Get("cardNumber")
	}
	card = strings.NewReplacer(" ", "", "-", "").Replace(card)
	if card == "" {
		return "", market.Invalid(market.FieldError{Field: "cardNumber", Message: "is required"})
	}
	return card, nil
}
