package checkouts

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/orders"
	"marketplace/internal/shipping"
)

// Status is a session's status for its reader.
type Status string

const (
	// StatusIncomplete: nothing is wrong, something is still to give (an
	// address, a fulfillment option).
	StatusIncomplete Status = "incomplete"
	// StatusNotReady: an error message says what stops the purchase.
	StatusNotReady        Status = "not_ready_for_payment"
	StatusReady           Status = "ready_for_payment"
	StatusInProgress      Status = "complete_in_progress"
	StatusPendingApproval Status = "pending_approval"
	StatusCompleted       Status = "completed"
	StatusCanceled        Status = "canceled"
	StatusExpired         Status = "expired"
)

// View is a session as its reader sees it now.
type View struct {
	*Session
	Status    Status
	Lines     []Line
	Totals    Totals
	Messages  []Message
	ExpiresAt time.Time
	Order     *orders.Order // once completed (or queued for approval)
}

// Line is a line item with what the listing shows of it.
type Line struct {
	Item
	Title       string
	Description string
	PhotoIDs    []string
	Category    string
	UnitAmount  int64
	SellerName  string
	Found       bool // the listing can be shown

	listing *listings.Listing
}

// Totals are the session's amounts in cents; Fulfillment is nil until an
// option is chosen. Total is what the purchase would charge.
type Totals struct {
	Items       int64
	Subtotal    int64
	Fulfillment *int64
	Fee         int64
	Tax         int64
	Total       int64
}

// MessageKind is an info or an error message.
type MessageKind string

const (
	MessageInfo  MessageKind = "info"
	MessageError MessageKind = "error"
)

// Resolution says who can resolve an error message.
type Resolution string

const (
	Recoverable        Resolution = "recoverable"
	RequiresBuyerInput Resolution = "requires_buyer_input"
	RequiresReview     Resolution = "requires_buyer_review"
)

// Message codes: ACP's names, which the protocols share.
const (
	CodeMissing          = "missing"
	CodeInvalid          = "invalid"
	CodeOutOfStock       = "out_of_stock"
	CodePaymentDeclined  = "payment_declined"
	CodeMaximumExceeded  = "maximum_exceeded"
	CodeApprovalRequired = "approval_required"
	CodeIntervention     = "intervention_required"
	CodeExpired          = "expired"
)

// Message tells the buyer's agent something about the session. Param is a
// JSONPath into the session ($.line_items[0]).
type Message struct {
	Kind       MessageKind
	Code       string // error messages
	Param      string
	Content    string
	Resolution Resolution
}

func errorMessage(code, param string, r Resolution, format string, args ...any) Message {
	return Message{Kind: MessageError, Code: code, Param: param, Content: fmt.Sprintf(format, args...), Resolution: r}
}

// view works out what sess shows now.
func (s *Service) view(ctx context.Context, b Buyer, sess *Session, extra ...Message) (*View, error) {
	v := &View{Session: sess, ExpiresAt: sess.ExpiresAt()}
	if sess.State == StatePendingApproval {
		if err := s.decided(ctx, b, sess); err != nil {
			return nil, err
		}
	}
	s.lines(ctx, b, v)
	switch sess.State {
	case StateCompleted, StatePendingApproval, StateCompleting:
		if sess.OrderID != "" {
			o, err := s.orders.Get(ctx, b.actor(sess), sess.OrderID)
			if err != nil {
				return nil, err
			}
			v.Order, v.Totals = o, totalsOf(o.Fees, true)
		}
		v.Status = map[State]Status{StateCompleted: StatusCompleted, StatePendingApproval: StatusPendingApproval,
			StateCompleting: StatusInProgress}[sess.State]
		if sess.State == StatePendingApproval {
			v.Messages = append(v.Messages, errorMessage(CodeApprovalRequired, "", RequiresReview,
				"The purchase is above the owner's approval threshold and waits for the owner's decision."))
		}
		if v.Order == nil {
			v.Totals = s.itemTotals(ctx, v)
		}
		return v, nil
	case StateCanceled:
		v.Status, v.Totals = StatusCanceled, s.itemTotals(ctx, v)
		return v, nil
	}
	if s.expired(sess) {
		v.Status, v.Totals = StatusExpired, s.itemTotals(ctx, v)
		v.Messages = append(v.Messages, errorMessage(CodeExpired, "", RequiresBuyerInput,
			"This checkout session expired %s after its last update; open a new one.", Lifetime))
		return v, nil
	}
	v.Messages = append(v.Messages, s.problems(b, v)...)
	if ln := v.Lines; len(ln) == 1 && ln[0].Found && sess.SeenPrice != 0 && ln[0].UnitAmount != sess.SeenPrice {
		v.Messages = append(v.Messages, Message{Kind: MessageInfo, Param: "$.line_items[0]",
			Content: "The price changed from " + formatCents(sess.SeenPrice) + " to " + formatCents(ln[0].UnitAmount) + "."})
	}
	needs := s.needs(v)
	if !hasError(v.Messages) && len(v.Lines) == 1 {
		t, err := s.price(ctx, b, v)
		if err != nil {
			v.Messages = append(v.Messages, messageOf(err)...)
		} else {
			v.Totals = t
		}
	}
	if v.Totals == (Totals{}) {
		v.Totals = s.itemTotals(ctx, v)
	}
	// A declined payment leaves the cart ready for another payment; every
	// other refusal of this call stops it.
	blocked := hasError(v.Messages)
	for _, m := range extra {
		blocked = blocked || m.Kind == MessageError && m.Code != CodePaymentDeclined
	}
	v.Messages = append(v.Messages, extra...)
	switch {
	case blocked:
		v.Status = StatusNotReady
	case len(needs) > 0:
		v.Status = StatusIncomplete
		v.Messages = append(v.Messages, needs...)
	default:
		v.Status = StatusReady
	}
	return v, nil
}

// decided finds what the owner decided on a purchase waiting for
// approval: an approval that went through completes the session, a
// rejection (or an expired queue) cancels it.
func (s *Service) decided(ctx context.Context, b Buyer, sess *Session) error {
	o, err := s.orders.Get(ctx, b.actor(sess), sess.OrderID)
	if err != nil {
		return err
	}
	var to State
	switch o.Status {
	case orders.StatusPendingApproval, orders.StatusPendingPayment:
		return nil
	case orders.StatusCancelled, orders.StatusExpired:
		to = StateCanceled
	default:
		to = StateCompleted
	}
	cur, err := s.amend(ctx, sess.ID, func(cur *Session) bool {
		if cur.State != StatePendingApproval {
			return false
		}
		cur.State = to
		return true
	})
	if err != nil {
		return err
	}
	*sess = *cur
	return nil
}

// lines fills v's line items from their listings.
func (s *Service) lines(ctx context.Context, b Buyer, v *View) {
	for _, it := range v.Items {
		ln := Line{Item: it}
		if l, seller, err := s.listings.GetWithSeller(ctx, b.actor(v.Session), it.ListingID); err == nil {
			ln.Found, ln.Title, ln.Description, ln.PhotoIDs, ln.Category, ln.UnitAmount =
				true, l.Title, l.Description, l.PhotoIDs, l.CategoryID, l.Price
			ln.SellerName = seller.DisplayName
			if ln.SellerName == "" {
				ln.SellerName = seller.Username
			}
			ln.listing = l
		}
		v.Lines = append(v.Lines, ln)
	}
}

// problems are the error messages of the cart itself: one item, once, on
// sale, not the buyer's own; an e-mail for a guest.
func (s *Service) problems(b Buyer, v *View) []Message {
	var out []Message
	switch {
	case len(v.Lines) == 0:
		out = append(out, errorMessage(CodeMissing, "$.line_items", RequiresBuyerInput, "Add the listing to buy."))
	case len(v.Lines) > 1:
		out = append(out, errorMessage(CodeInvalid, "$.line_items", RequiresBuyerInput,
			"A checkout session buys one listing; open one session per listing."))
	}
	for i, ln := range v.Lines {
		param := "$.line_items[" + strconv.Itoa(i) + "]"
		switch {
		case ln.Quantity != 1:
			out = append(out, errorMessage(CodeInvalid, param+".quantity", RequiresBuyerInput,
				"Each listing is one second-hand item: the quantity is 1."))
		case !ln.Found:
			out = append(out, errorMessage(CodeOutOfStock, param, RequiresBuyerInput, "This listing is no longer available."))
		case ln.listing.Status != listings.StatusActive:
			out = append(out, errorMessage(CodeOutOfStock, param, RequiresBuyerInput, "This listing has been %s.",
				map[bool]string{true: "sold", false: "taken off sale"}[ln.listing.Status == listings.StatusSold]))
		case b.User != nil && ln.listing.SellerID == b.User.ID:
			out = append(out, errorMessage(CodeInvalid, param, RequiresBuyerInput, "This is your own listing: it cannot be bought."))
		}
	}
	if b.Key == nil && (v.Buyer == nil || v.Buyer.Email == "") {
		out = append(out, errorMessage(CodeMissing, "$.buyer.email", RequiresBuyerInput,
			"The buyer's e-mail address is needed: the order's e-mails go there."))
	}
	return out
}

// needs are info messages for what is still to give.
func (s *Service) needs(v *View) []Message {
	if len(v.Lines) != 1 || !v.Lines[0].Found {
		return nil
	}
	l := v.Lines[0].listing
	switch {
	case v.Destination == nil && l.ShippingType != listings.ShipLocalPickup:
		return []Message{{Kind: MessageInfo, Param: "$.fulfillment_details.address",
			Content: "Give the address to ship to: the shipping options are quoted for it."}}
	case len(v.Options) == 0:
		return []Message{{Kind: MessageError, Code: CodeInvalid, Param: "$.fulfillment_details.address",
			Resolution: RequiresBuyerInput, Content: "This listing cannot be sent to that address."}}
	case len(v.Selected) == 0:
		return []Message{{Kind: MessageInfo, Param: "$.selected_fulfillment_options",
			Content: "Choose one of the fulfillment options."}}
	}
	return nil
}

// chosen is the option selected for the session's item, or nil.
func (v *View) chosen() *Option {
	for _, sel := range v.Selected {
		if o := v.option(sel.OptionID); o != nil {
			return o
		}
	}
	return nil
}

// price is what the purchase would charge now: the purchase's own
// estimate once an option is chosen, the item and its fee before.
func (s *Service) price(ctx context.Context, b Buyer, v *View) (Totals, error) {
	opt := v.chosen()
	if opt == nil {
		return s.itemTotals(ctx, v), nil
	}
	o, err := s.orders.Estimate(ctx, b.purchaser(v.Session), purchaseInput(v.Session, opt))
	if err != nil {
		return Totals{}, err
	}
	return totalsOf(o.Fees, true), nil
}

// itemTotals are the item's price and fee, before fulfillment.
func (s *Service) itemTotals(ctx context.Context, v *View) Totals {
	var price int64
	for _, ln := range v.Lines {
		price += ln.UnitAmount * int64(ln.Quantity)
	}
	total, err := s.orders.BuyerTotals(ctx)
	if err != nil || price == 0 {
		return Totals{Items: price, Subtotal: price, Total: price}
	}
	return totalsOf(orders.Fees{ItemPrice: price, TotalCharged: total(price, 0), ServiceFee: total(price, 0) - price}, false)
}

// OrderTotals are an order's totals as a session shows them.
func OrderTotals(f orders.Fees) Totals { return totalsOf(f, true) }

func totalsOf(f orders.Fees, fulfilled bool) Totals {
	t := Totals{Items: f.ItemPrice, Subtotal: f.ItemPrice, Fee: f.ServiceFee, Total: f.TotalCharged}
	if fulfilled {
		cost := f.ShippingCost
		t.Fulfillment = &cost
	}
	return t
}

// purchaseInput is the purchase of sess's item with option opt.
func purchaseInput(sess *Session, opt *Option) orders.PurchaseInput {
	in := orders.PurchaseInput{ListingID: sess.Items[0].ListingID, ShippingRateID: opt.RateID}
	if opt.Kind == FulfillPickup {
		in.Fulfillment = string(orders.FulfillLocalPickup)
	} else {
		in.Fulfillment = string(orders.FulfillShipping)
		if sess.Destination != nil {
			a := sess.Destination.Address
			in.ShippingAddress = &a
		}
	}
	return in
}

func hasError(ms []Message) bool {
	for _, m := range ms {
		if m.Kind == MessageError {
			return true
		}
	}
	return false
}

// messageOf turns a refusal of the purchase (or its estimate) into the
// session's messages. It answers nil for a refusal that is no business
// answer (a frozen key, a suspended owner, a failure of ours): the caller
// gives that one back as an error.
func messageOf(err error) []Message {
	var e *market.Error
	if !errors.As(err, &e) {
		return nil
	}
	item := "$.line_items[0]"
	switch e.Code {
	case market.CodeListingNotFound, market.CodeListingSold, market.CodeListingNotAvailable:
		return []Message{errorMessage(CodeOutOfStock, item, RequiresBuyerInput, "This listing is no longer available.")}
	case market.CodeCannotBuyOwnListing:
		return []Message{errorMessage(CodeInvalid, item, RequiresBuyerInput, "This is your own listing: it cannot be bought.")}
	case market.CodeSpendingLimitExceeded:
		return []Message{errorMessage(CodeMaximumExceeded, "", RequiresReview, "%s", capText(e))}
	case market.CodeCategoryRestricted:
		return []Message{errorMessage(CodeIntervention, item, RequiresReview, "%s", e.Message)}
	case market.CodePaymentFailed, market.CodeSCARequired, market.CodePaymentMethodRequired:
		return []Message{errorMessage(CodePaymentDeclined, "$.payment_data", Recoverable, "%s", e.Message)}
	case market.CodeValidation, market.CodeShippingCostRequired:
		var out []Message
		for _, f := range e.Fields {
			out = append(out, errorMessage(CodeInvalid, paramOf(f.Field), RequiresBuyerInput, "%s %s", f.Field, f.Message))
		}
		if len(out) == 0 {
			out = append(out, errorMessage(CodeInvalid, "", RequiresBuyerInput, "%s", e.Message))
		}
		return out
	}
	return nil
}

// capText says which cap a purchase is over, and what remains of it:
// "This purchase of $62.10 is over the owner's per-transaction limit of
// $50.00; $50.00 remains."
func capText(e *market.Error) string {
	amount, ok1 := e.Details["requested_amount"].(int64)
	limit, ok2 := e.Details["limit"].(int64)
	left, ok3 := e.Details["remaining"].(int64)
	kind, _ := e.Details["limit_type"].(string)
	if !ok1 || !ok2 || !ok3 {
		return e.Message
	}
	return fmt.Sprintf("This purchase of %s is over the owner's %s limit of %s; %s remains. The owner can raise the limit.",
		formatCents(amount), strings.ReplaceAll(kind, "_", "-"), formatCents(limit), formatCents(left))
}

// paramOf is the session's path for a purchase field.
func paramOf(field string) string {
	switch field {
	case "shippingRateId", "shipping_rate_id", "fulfillment_type":
		return "$.selected_fulfillment_options"
	case "zip", "shippingAddress.zip", "shipping_address.zip":
		return "$.fulfillment_details.address.postal_code"
	}
	return "$.fulfillment_details.address"
}

// formatCents is an amount in dollars for a message: "$12.50".
func formatCents(c int64) string { return "$" + shipping.FormatCents(c) }
