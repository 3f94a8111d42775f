package agentv1

import (
	"context"
	"encoding/json"
	"errors"

	"marketplace/internal/agents"
	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// purchaseArgs are POST /v1/purchase's fields and the idempotency key every
// tool purchase carries. A tool that spends names its ceiling: max_price is
// required here (it shadows the body's field, which the HTTP route keeps
// as the interface has it), so an agent never pays a price that rose
// since it looked without having agreed to it.
type purchaseArgs struct {
	purchaseBody
	MaxPrice       *int64 `json:"max_price" minimum:"1" maximum:"1000000000" required:"true" doc:"The most, in cents, the item may cost (before fees and shipping): a higher price is MAX_PRICE_EXCEEDED and nothing is charged. Required."`
	IdempotencyKey string `json:"idempotency_key" minLength:"1" maxLength:"255" required:"true" doc:"Any string unique to this purchase (a UUID). A retry with the same key and arguments answers the first purchase's result and never charges twice, over MCP or HTTP alike; the same key with other arguments is DUPLICATE_REQUEST."`
}

// rawArgsKey carries a tool call's raw JSON arguments to its run.
type rawArgsKey struct{}

// withRawArgs hands t's run the raw arguments (in ctx), for tools that
// share HTTP's idempotency records, whose parameters are the raw body.
func withRawArgs(t Tool) Tool {
	inner := t.call
	t.call = func(ctx context.Context, p *httpapi.Principal, args json.RawMessage) (any, error) {
		return inner(context.WithValue(ctx, rawArgsKey{}, args), p, args)
	}
	return t
}

type approvalArgs struct {
	OrderID string `json:"order_id" format:"uuid" required:"true" doc:"The order_id that APPROVAL_REQUIRED's details named."`
}

// approvalStatus is the get_approval_status tool's answer.
type approvalStatus struct {
	OrderID          string     `json:"order_id"`
	Status           string     `json:"status" doc:"The order's status: 'pending_approval' while the owner has not decided; 'paid' (or later) once approved and charged; 'cancelled' when rejected."`
	AwaitingApproval bool       `json:"awaiting_approval" doc:"True while the purchase waits for the owner."`
	Order            *api.Order `json:"order" doc:"The order, as GET /v1/orders/{id} answers it."`
}

// buyingTools are buying, fees and the account and spending reads.
func (a *API) buyingTools() []Tool {
	return []Tool{
		withRawArgs(tool(Tool{Name: "purchase_listing", Title: "Buy a listing", Area: "purchases", Scope: agents.OpBuy,
			Destructive: true, Idempotent: true, OpenWorld: true,
			Description: "Buy a listing now with the owner's saved card (charged at once: item price + service fee + shipping), " +
				"within the spending caps; answers the order. max_price (required) is the most the item may cost: a price that rose above " +
				"it since you looked is refused (MAX_PRICE_EXCEEDED), never paid. Pass a fresh idempotency_key, and reuse that key on retry: " +
				"the same key never charges twice. Above the owner's approval threshold it answers APPROVAL_REQUIRED with order_id " +
				"(poll get_approval_status); other refusals: MAX_PRICE_EXCEEDED, PRICE_CHANGED, SPENDING_LIMIT_EXCEEDED, CATEGORY_RESTRICTED, " +
				"LISTING_NOT_AVAILABLE, LISTING_SOLD, PAYMENT_METHOD_REQUIRED, PAYMENT_FAILED, DUPLICATE_REQUEST, INSUFFICIENT_SCOPE."},
			func(ctx context.Context, p *httpapi.Principal, in *purchaseArgs) (any, error) {
				if a.router == nil {
					return nil, market.Internal(errors.New("agentv1: the purchase tool is called before Register"))
				}
				in.purchaseBody.MaxPrice = in.MaxPrice
				raw, _ := ctx.Value(rawArgsKey{}).(json.RawMessage)
				return a.router.CallIdempotent(ctx, p, "POST "+Prefix+"/purchase", raw, func(ctx context.Context) (any, error) {
					o, err := a.purchaseOf(ctx, p, &in.purchaseBody)
					if err != nil {
						return nil, err
					}
					return o, nil
				})
			})),
		tool(Tool{Name: "check_purchase", Title: "Dry-run a purchase", Area: "purchases", Scope: agents.OpBuy, ReadOnly: true, Idempotent: true,
			Description: "Ask whether purchase_listing would go through now, with the same arguments (no idempotency_key), without " +
				"reserving, recording or charging anything. Answers allowed, the code purchase_listing would give (APPROVAL_REQUIRED " +
				"when it would wait for the owner; a declined card is never predicted), the fees, what is left of each spending cap, " +
				"and unblock: which cap to raise and by how many cents, when a spending window resets, or what the owner must do."},
			func(ctx context.Context, p *httpapi.Principal, in *purchaseBody) (any, error) {
				return a.checkOf(ctx, p, in)
			}),
		tool(Tool{Name: "estimate_fees", Title: "Estimate a purchase's cost", Area: "purchases", ReadOnly: true, Idempotent: true,
			Description: "What buying a listing would cost now (item price, service fee, shipping, total) with the same arguments as " +
				"purchase_listing, checked against the listing and shipping but without reserving or charging anything. " +
				"Refusals as purchase_listing's (LISTING_NOT_FOUND, LISTING_NOT_AVAILABLE, SHIPPING_COST_REQUIRED, VALIDATION_ERROR)."},
			func(ctx context.Context, p *httpapi.Principal, in *purchaseBody) (any, error) {
				pin, err := in.input()
				if err != nil {
					return nil, err
				}
				return a.OrderOps().Estimate(ctx, p, pin)
			}),
		tool(Tool{Name: "get_spending_summary", Title: "Spending summary", Area: "spending_controls", ReadOnly: true, Idempotent: true,
			Description: "The owner's spending controls and where spending stands: spent today, this week and this month, what " +
				"remains of each cap, and what open offers reserve. Check it before a purchase or an offer; it costs nothing."},
			func(ctx context.Context, p *httpapi.Principal, _ *noArgs) (any, error) {
				return a.KeyOps().Spending(ctx, p)
			}),
		tool(Tool{Name: "get_spending_controls", Title: "Spending controls", Area: "spending_controls", ReadOnly: true, Idempotent: true,
			Description: "The spending controls in force for this key as one flat object (per-transaction, daily, weekly and " +
				"monthly limits, blocked categories, approval threshold, the key's own caps, spent and remaining amounts). " +
				"Only the owner changes them; reading costs nothing."},
			func(ctx context.Context, p *httpapi.Principal, _ *noArgs) (any, error) { return a.spendingOf(ctx, p) }),
		tool(Tool{Name: "get_account", Title: "The owner's account", Area: "accounts", ReadOnly: true, Idempotent: true,
			Description: "The account of the key's owner: id, username, display name, trust tier, identity verification. " +
				"Costs nothing."},
			func(ctx context.Context, p *httpapi.Principal, _ *noArgs) (any, error) {
				return api.UserOf(p.User), nil
			}),
		tool(Tool{Name: "get_payment_methods", Title: "Saved cards", Area: "accounts", ReadOnly: true, Idempotent: true,
			Description: "The owner's saved cards (brand, last 4 digits, expiry, which is the default). A purchase uses the default " +
				"card unless payment_method_id names another; with none it fails PAYMENT_METHOD_REQUIRED and only the owner can add one."},
			func(ctx context.Context, p *httpapi.Principal, _ *noArgs) (any, error) {
				return a.paymentMethodsOf(ctx, p)
			}),
		tool(Tool{Name: "get_addresses", Title: "Saved addresses", Area: "accounts", ReadOnly: true, Idempotent: true,
			Description: "The owner's saved shipping addresses; pass one's id as shipping_address_id to purchase_listing, " +
				"or leave it out for the default. Costs nothing."},
			func(ctx context.Context, p *httpapi.Principal, _ *noArgs) (any, error) { return a.addressesOf(ctx, p) }),
		tool(Tool{Name: "get_approval_status", Title: "Approval status of a purchase", Area: "purchases", ReadOnly: true, Idempotent: true,
			Description: "Whether a purchase that answered APPROVAL_REQUIRED still waits for the owner: pass its order_id. " +
				"awaiting_approval stays true until the owner approves (the order is then charged and paid) or rejects it (cancelled). " +
				"NOT_FOUND for an order that is not the owner's."},
			func(ctx context.Context, p *httpapi.Principal, in *approvalArgs) (any, error) {
				o, err := a.OrderOps().Get(ctx, p, in.OrderID)
				if err != nil {
					return nil, err
				}
				return &approvalStatus{OrderID: o.ID, Status: o.Status,
					AwaitingApproval: o.Status == string(orders.StatusPendingApproval), Order: o}, nil
			}),
	}
}
