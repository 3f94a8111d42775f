package acp

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/checkouts"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/shipping"
)

// Session is ACP's CheckoutSession.
type Session struct {
	ID                 string              `json:"id"`
	Protocol           protocol            `json:"protocol"`
	Capabilities       capabilities        `json:"capabilities"`
	Buyer              *buyer              `json:"buyer,omitempty"`
	Status             string              `json:"status"`
	Currency           string              `json:"currency"`
	LineItems          []lineItem          `json:"line_items"`
	FulfillmentDetails *fulfillmentDetails `json:"fulfillment_details,omitempty"`
	FulfillmentOptions []any               `json:"fulfillment_options"`
	Selected           []selectedOption    `json:"selected_fulfillment_options,omitempty"`
	Totals             []total             `json:"totals"`
	Messages           []message           `json:"messages"`
	Links              []link              `json:"links"`
	CreatedAt          time.Time           `json:"created_at"`
	UpdatedAt          time.Time           `json:"updated_at"`
	ExpiresAt          time.Time           `json:"expires_at"`
	Order              *order              `json:"order,omitempty"`
}

type protocol struct {
	Version string `json:"version"`
}

type capabilities struct {
	Payment payment `json:"payment"`
}

type payment struct {
	Handlers []handler `json:"handlers"`
}

type handler struct {
	ID                      string         `json:"id"`
	Name                    string         `json:"name"`
	DisplayName             string         `json:"display_name,omitempty"`
	Version                 string         `json:"version"`
	Spec                    string         `json:"spec"`
	RequiresDelegatePayment bool           `json:"requires_delegate_payment"`
	RequiresPCICompliance   bool           `json:"requires_pci_compliance"`
	PSP                     string         `json:"psp"`
	ConfigSchema            string         `json:"config_schema"`
	InstrumentSchemas       []string       `json:"instrument_schemas"`
	Config                  map[string]any `json:"config"`
}

type lineItem struct {
	ID          string         `json:"id"`
	Item        itemRef        `json:"item"`
	Quantity    int            `json:"quantity"`
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Images      []string       `json:"images,omitempty"`
	UnitAmount  int64          `json:"unit_amount"`
	Seller      *sellerDetails `json:"marketplace_seller_details,omitempty"`
	Category    string         `json:"category,omitempty"`
	Available   string         `json:"availability_status"`
	Totals      []total        `json:"totals"`
}

type sellerDetails struct {
	Name string `json:"name"`
}

type total struct {
	Type        string `json:"type"`
	DisplayText string `json:"display_text"`
	Amount      int64  `json:"amount"`
}

type shippingOption struct {
	Type     string  `json:"type"`
	ID       string  `json:"id"`
	Title    string  `json:"title"`
	Carrier  string  `json:"carrier,omitempty"`
	Earliest *string `json:"earliest_delivery_time,omitempty"`
	Latest   *string `json:"latest_delivery_time,omitempty"`
	Totals   []total `json:"totals"`
}

type pickupOption struct {
	Type        string   `json:"type"`
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	Location    location `json:"location"`
	Totals      []total  `json:"totals"`
}

type location struct {
	Name         string  `json:"name"`
	Address      address `json:"address"`
	Instructions string  `json:"instructions,omitempty"`
}

type message struct {
	Type        string `json:"type"`
	Code        string `json:"code,omitempty"`
	Param       string `json:"param,omitempty"`
	ContentType string `json:"content_type"`
	Content     string `json:"content"`
	Resolution  string `json:"resolution,omitempty"`
}

type link struct {
	Type  string `json:"type"`
	Title string `json:"title,omitempty"`
	URL   string `json:"url"`
}

type order struct {
	Type              string  `json:"type"`
	ID                string  `json:"id"`
	CheckoutSessionID string  `json:"checkout_session_id"`
	PermalinkURL      string  `json:"permalink_url"`
	Status            string  `json:"status"`
	Totals            []total `json:"totals,omitempty"`
}

// sessionOf is v on the wire.
func (b *Binding) sessionOf(r *http.Request, v *checkouts.View) *Session {
	out := &Session{ID: v.ID, Protocol: protocol{Version: Version}, Status: string(v.Status), Currency: v.Currency,
		LineItems: []lineItem{}, FulfillmentOptions: []any{}, Messages: []message{}, CreatedAt: v.CreatedAt,
		UpdatedAt: v.UpdatedAt, ExpiresAt: v.ExpiresAt, Capabilities: capabilities{Payment: payment{Handlers: b.handlers(r)}}}
	if c := v.Buyer; c != nil && c.Email != "" {
		out.Buyer = &buyer{FirstName: c.FirstName, LastName: c.LastName, FullName: c.FullName, Email: c.Email, PhoneNumber: c.Phone}
	}
	for _, ln := range v.Lines {
		out.LineItems = append(out.LineItems, b.lineItemOf(ln))
	}
	if d := v.Destination; d != nil {
		a := d.Address
		out.FulfillmentDetails = &fulfillmentDetails{Name: d.Name, PhoneNumber: d.Phone, Email: d.Email, Address: &address{
			Name: a.Name, LineOne: a.Line1, LineTwo: a.Line2, City: a.City, State: a.State, Country: a.Country, PostalCode: a.Zip}}
	}
	for _, o := range v.Options {
		out.FulfillmentOptions = append(out.FulfillmentOptions, optionOf(o, v))
	}
	for _, sel := range v.Selected {
		if o := optionByID(v, sel.OptionID); o != nil {
			out.Selected = append(out.Selected, selectedOption{Type: string(o.Kind), OptionID: o.ID, ItemIDs: sel.ItemIDs})
		}
	}
	out.Totals = totalsOf(v.Totals)
	for _, m := range v.Messages {
		out.Messages = append(out.Messages, message{Type: string(m.Kind), Code: m.Code, Param: m.Param,
			ContentType: "plain", Content: m.Content, Resolution: string(m.Resolution)})
	}
	out.Links = b.links()
	if v.Status == checkouts.StatusCompleted && v.Order != nil {
		out.Order = &order{Type: "order", ID: v.Order.ID, CheckoutSessionID: v.ID, PermalinkURL: b.permalink(v.Order.ID),
			Status: orderStatus(string(v.Order.Status))}
	}
	return out
}

func (b *Binding) lineItemOf(ln checkouts.Line) lineItem {
	li := lineItem{ID: ln.ID, Item: itemRef{ID: ln.ListingID}, Quantity: ln.Quantity, Name: ln.Title,
		Description: ln.Description, UnitAmount: ln.UnitAmount, Category: ln.Category, Available: "in_stock"}
	if !ln.Found {
		li.Available = "out_of_stock"
	}
	for _, id := range ln.PhotoIDs {
		li.Images = append(li.Images, b.Ops.Photos.PhotoURL(id))
	}
	if ln.SellerName != "" {
		li.Seller = &sellerDetails{Name: ln.SellerName}
	}
	amount := ln.UnitAmount * int64(ln.Quantity)
	li.Totals = []total{{"items_base_amount", "Item", amount}, {"subtotal", "Subtotal", amount}, {"total", "Total", amount}}
	return li
}

func optionByID(v *checkouts.View, id string) *checkouts.Option {
	for i := range v.Options {
		if v.Options[i].ID == id {
			return &v.Options[i]
		}
	}
	return nil
}

// optionOf is a fulfillment option on the wire: shipping with its
// delivery estimate, or pickup from the seller.
func optionOf(o checkouts.Option, v *checkouts.View) any {
	totals := []total{{"fulfillment", "Fulfillment", o.Amount}, {"total", "Total", o.Amount}}
	if o.Kind == checkouts.FulfillPickup {
		seller := "the seller"
		if len(v.Lines) == 1 && v.Lines[0].SellerName != "" {
			seller = v.Lines[0].SellerName
		}
		return pickupOption{Type: "pickup", ID: o.ID, Title: "Local pickup",
			Description: "Collect the item from " + seller + "; the place and time are agreed in messages after the purchase.",
			Location:    location{Name: "Arranged with " + seller, Address: address{Name: seller, LineOne: "Agreed after purchase"}},
			Totals:      totals}
	}
	title := strings.ToUpper(o.Carrier) + " " + strings.ReplaceAll(o.Service, "_", " ")
	if o.Carrier == shipping.CarrierSeller {
		title = map[bool]string{true: "Free shipping", false: "Shipping by the seller"}[o.Amount == 0]
	}
	opt := shippingOption{Type: "shipping", ID: o.ID, Title: title, Carrier: o.Carrier, Totals: totals}
	if o.Days > 0 {
		earliest := v.UpdatedAt.AddDate(0, 0, o.Days).UTC().Format(time.RFC3339)
		opt.Earliest, opt.Latest = &earliest, &earliest
	}
	return opt
}

func totalsOf(t checkouts.Totals) []total {
	out := []total{{"items_base_amount", "Item", t.Items}, {"subtotal", "Subtotal", t.Subtotal}}
	if t.Fulfillment != nil {
		out = append(out, total{"fulfillment", "Shipping", *t.Fulfillment})
	}
	return append(out, total{"fee", "Buyer protection fee", t.Fee}, total{"tax", "Tax", t.Tax}, total{"total", "Total", t.Total})
}

// links are the marketplace's policy pages.
func (b *Binding) links() []link {
	base := b.Ops.PublicURL
	return []link{{Type: "terms_of_use", URL: base + "/docs/terms"}, {Type: "return_policy", URL: base + "/docs/returns"},
		{Type: "support", URL: base + "/"}}
}

// permalink is the order's page in the web console.
func (b *Binding) permalink(orderID string) string { return b.Ops.PublicURL + "/orders/" + orderID }

// orderStatus is an order's status as ACP's order webhooks name it.
func orderStatus(s string) string {
	switch s {
	case "pending_approval", "pending_payment":
		return "manual_review"
	case "paid", "pickup_ready":
		return "confirmed"
	case "shipped":
		return "shipped"
	case "delivered", "completed":
		return "completed"
	case "cancelled", "refunded", "expired":
		return "canceled"
	}
	return s
}

// handlers are the payment handlers the caller may use.
func (b *Binding) handlers(r *http.Request) []handler {
	var out []handler
	for _, id := range checkouts.Handlers(buyerOf(r)) {
		if id == checkouts.HandlerCard {
			psp := "stripe"
			if b.Vault != nil {
				psp = "marketplace"
			}
			out = append(out, handler{ID: id, Name: "dev.acp.tokenized.card", DisplayName: "Card",
				Version: "2026-01-22", Spec: "https://acp.dev/handlers/tokenized.card", RequiresDelegatePayment: true,
				PSP: psp, ConfigSchema: "https://acp.dev/schemas/handlers/tokenized.card/config.json",
				InstrumentSchemas: []string{"https://acp.dev/schemas/handlers/tokenized.card/instrument.json"},
				Config: map[string]any{"merchant_id": MerchantID, "psp": psp, "accepted_brands": []string{"visa", "mastercard", "amex", "discover"},
					"accepted_funding_types": []string{"credit", "debit", "prepaid"}, "supports_3ds": false}})
		}
		if id == checkouts.HandlerSavedCard {
			out = append(out, handler{ID: id, Name: "dev.acp.seller_backed.saved_card", DisplayName: "The owner's saved card",
				Version: "2026-02-05", Spec: "https://acp.dev/handlers/seller_backed/saved_card", RequiresDelegatePayment: false,
				PSP: "marketplace", ConfigSchema: "https://acp.dev/schemas/handlers/seller_backed/saved_card/config.json",
				InstrumentSchemas: []string{"https://acp.dev/schemas/handlers/seller_backed/saved_card/instrument.json"},
				Config:            map[string]any{"merchant_id": MerchantID, "psp": "marketplace"}})
		}
	}
	return out
}

// inputOf is a create's or an update's cart for the checkout service.
func inputOf(buy *buyer, items []itemRef, fd *fulfillmentDetails, sel []selectedOption) (checkouts.Input, error) {
	var in checkouts.Input
	if buy != nil {
		if buy.Email == "" {
			return in, invalid("$.buyer.email", "is required")
		}
		in.Buyer = &checkouts.Contact{FirstName: buy.FirstName, LastName: buy.LastName, FullName: buy.FullName,
			Email: buy.Email, Phone: buy.PhoneNumber}
	}
	if items != nil {
		in.Listings = []string{}
		for i, it := range items {
			if it.ID == "" {
				return in, invalid("$.line_items["+strconv.Itoa(i)+"].id", "is required")
			}
			in.Listings = append(in.Listings, it.ID)
		}
	}
	if fd != nil {
		d := &checkouts.Destination{Name: fd.Name, Phone: fd.PhoneNumber, Email: fd.Email}
		if a := fd.Address; a != nil {
			for _, f := range []struct{ name, v string }{{"name", a.Name}, {"line_one", a.LineOne}, {"city", a.City},
				{"state", a.State}, {"country", a.Country}, {"postal_code", a.PostalCode}} {
				if strings.TrimSpace(f.v) == "" {
					return in, invalid("$.fulfillment_details.address."+f.name, "is required")
				}
			}
			d.Address = accounts.Address{Name: a.Name, Line1: a.LineOne, Line2: a.LineTwo, City: a.City, State: a.State,
				Zip: a.PostalCode, Country: strings.ToUpper(a.Country)}
		}
		in.Destination = d
	}
	if sel != nil {
		in.Selected = []checkouts.Selection{}
		for i, s := range sel {
			if s.OptionID == "" {
				return in, invalid("$.selected_fulfillment_options["+strconv.Itoa(i)+"].option_id", "is required")
			}
			in.Selected = append(in.Selected, checkouts.Selection{OptionID: s.OptionID, ItemIDs: s.ItemIDs})
		}
	}
	return in, nil
}

func (b *Binding) answer(w http.ResponseWriter, r *http.Request, status int, v *checkouts.View, err error) error {
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, status, b.sessionOf(r, v))
	return nil
}

func (b *Binding) create(w http.ResponseWriter, r *http.Request) error {
	var req createRequest
	if err := decode(r, &req, 0); err != nil {
		return err
	}
	switch {
	case len(req.LineItems) == 0:
		return invalid("$.line_items", "must list the item to buy")
	case req.Currency == "":
		return invalid("$.currency", "is required")
	case strings.ToLower(req.Currency) != "usd":
		return invalid("$.currency", "must be usd: prices here are in US dollars")
	case len(req.Capabilities) == 0 || req.Capabilities[0] != '{':
		return invalid("$.capabilities", "is required: an object")
	}
	in, err := inputOf(req.Buyer, req.LineItems, req.FulfillmentDetails, nil)
	if err != nil {
		return err
	}
	v, err := b.Ops.Checkouts.Create(r.Context(), buyerOf(r), in)
	if err == nil {
		httpapi.Entity(r, "checkout_session", v.ID)
	}
	return b.answer(w, r, http.StatusCreated, v, err)
}

func (b *Binding) update(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "checkout_session")
	var req updateRequest
	if err := decode(r, &req, 0); err != nil {
		return err
	}
	in, err := inputOf(req.Buyer, req.LineItems, req.FulfillmentDetails, req.Selected)
	if err != nil {
		return err
	}
	v, err := b.Ops.Checkouts.Update(r.Context(), buyerOf(r), id, in)
	return b.answer(w, r, http.StatusOK, v, err)
}

func (b *Binding) get(w http.ResponseWriter, r *http.Request) error {
	v, err := b.Ops.Checkouts.Get(r.Context(), buyerOf(r), r.PathValue("id"))
	return b.answer(w, r, http.StatusOK, v, err)
}

func (b *Binding) complete(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "checkout_session")
	var req completeRequest
	if err := decode(r, &req, 0); err != nil {
		return err
	}
	pd := req.PaymentData
	switch {
	case pd == nil:
		return invalid("$.payment_data", "is required")
	case pd.HandlerID == "":
		return invalid("$.payment_data.handler_id", "is required")
	case pd.Instrument == nil:
		return invalid("$.payment_data.instrument", "is required")
	case pd.Instrument.Credential == nil:
		return invalid("$.payment_data.instrument.credential", "is required")
	}
	pay := checkouts.PaymentChoice{Handler: pd.HandlerID, Token: pd.Instrument.Credential.Token}
	if pd.HandlerID == checkouts.HandlerSavedCard {
		pay.Token = "" // the owner's default card; a token names none here
	}
	if req.Buyer != nil {
		if _, err := inputOf(req.Buyer, nil, nil, nil); err != nil {
			return err
		}
	}
	v, err := b.Ops.Checkouts.Complete(r.Context(), buyerOf(r), id, pay, httpapi.RequestID(r.Context()))
	return b.answer(w, r, http.StatusOK, v, err)
}

func (b *Binding) cancel(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "checkout_session")
	var req cancelRequest
	if err := decode(r, &req, bodyOptional|bodyOpen); err != nil {
		return err
	}
	v, err := b.Ops.Checkouts.Cancel(r.Context(), buyerOf(r), id)
	if market.CodeOf(err) == market.CodeInvalidState {
		return err
	}
	return b.answer(w, r, http.StatusOK, v, err)
}
