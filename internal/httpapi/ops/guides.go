package ops

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"net/http"
	"text/template"

	"marketplace/internal/agents"
	"marketplace/internal/httpapi"
	"marketplace/internal/httpapi/agentv1"
	"marketplace/internal/listings"
	"marketplace/internal/listings/photos"
	"marketplace/internal/market"
	"marketplace/internal/messaging"
	"marketplace/internal/offers"
	"marketplace/internal/settings"
)

// The agent guides, served at the root where agents and their tools look
// for them: /llms.txt (what the marketplace is and where everything is)
// and /agent-skill.md (a procedure an agent follows end to end). Both are
// made at request time from the running configuration and the tool
// catalogue, so they never describe a server that is not this one.
const (
	LLMsPath  = "/llms.txt"
	SkillPath = "/agent-skill.md"
)

//go:embed llms.txt.tmpl
var llmsText string

//go:embed agent-skill.md.tmpl
var skillText string

var (
	llmsTmpl  = template.Must(template.New("llms.txt").Parse(llmsText))
	skillTmpl = template.Must(template.New("agent-skill.md").Parse(skillText))
)

// Settings reads the admin configuration (offer rounds, fees) at request
// time; nil leaves the defaults.
type Settings interface {
	Int(ctx context.Context, k settings.Key[int64]) (int64, error)
}

// guideTool is a catalogue entry as the guides list it.
type guideTool struct {
	Name, Title, Description, Area string
	Scope                          string
	ReadOnly, Destructive          bool
}

// guideCode is an error code with its HTTP status and what to do.
type guideCode struct {
	Code   string
	Status int
	Advice string
}

// guideData is what the templates see.
type guideData struct {
	URL, Mode, Version string
	Sandbox            bool
	Tools              []guideTool
	Codes              []guideCode
	MaxPhotos          int
	MaxPhotoMiB        int
	MaxTitle, MaxBrief int
	MaxOfferMessage    int
	MaxMessage         int
	MaxOfferRounds     int64
	BuyerFeeBps        int64
	BuyerFeeMinimum    int64
	SellerFeeBps       int64
	MCPPath            string
	OpenAIToolsPath    string
	OpenAPIA, OpenAPIB string
	ManifestPath       string
	LLMsPath           string
	SkillPath          string
}

func (o *Ops) guideData(ctx context.Context) guideData {
	d := guideData{
		URL: o.PublicURL, Mode: o.Mode, Version: o.Version, Sandbox: o.Mode == "sandbox",
		MaxPhotos: listings.MaxPhotos, MaxPhotoMiB: photos.MaxUploadBytes >> 20,
		MaxTitle: listings.MaxTitleLen, MaxBrief: listings.MaxBriefLen,
		MaxOfferMessage: offers.MaxMessage, MaxMessage: messaging.MaxContent,
		MaxOfferRounds: 5, BuyerFeeBps: 350, BuyerFeeMinimum: 99, SellerFeeBps: 300,
		MCPPath: "/mcp", OpenAIToolsPath: "/v1/tools/openai",
		OpenAPIA: "/api/v1/openapi.json", OpenAPIB: "/v1/openapi.json", ManifestPath: "/api/v1/manifest",
		LLMsPath: LLMsPath, SkillPath: SkillPath,
	}
	if o.Settings != nil {
		for key, dst := range map[settings.Key[int64]]*int64{
			settings.OfferMaxRounds: &d.MaxOfferRounds, settings.BuyerFeeRateBps: &d.BuyerFeeBps,
			settings.BuyerFeeMinimum: &d.BuyerFeeMinimum, settings.SellerFeeRateBps: &d.SellerFeeBps,
		} {
			if v, err := o.Settings.Int(ctx, key); err == nil {
				*dst = v
			}
		}
	}
	for i := range o.Tools {
		t := &o.Tools[i]
		d.Tools = append(d.Tools, guideTool{Name: t.Name, Title: t.Title, Description: t.Description, Area: t.Area,
			Scope: scopeName(t), ReadOnly: t.ReadOnly, Destructive: t.Destructive})
	}
	for _, c := range market.Codes() {
		d.Codes = append(d.Codes, guideCode{Code: string(c), Status: httpapi.Status(c), Advice: Advice(c)})
	}
	return d
}

func scopeName(t *agentv1.Tool) string {
	switch t.Scope {
	case agents.OpBuy:
		return "buy"
	case agents.OpSell:
		return "sell"
	}
	return "any"
}

func (o *Ops) guide(tmpl *template.Template, contentType string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var buf bytes.Buffer
		if err := tmpl.Execute(&buf, o.guideData(r.Context())); err != nil {
			http.Error(w, fmt.Sprintf("guide: %v", err), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", "public, max-age=300")
		_, _ = w.Write(buf.Bytes())
	})
}

// LLMs is /llms.txt as the server would answer it now.
func (o *Ops) LLMs(ctx context.Context) (string, error) { return o.render(ctx, llmsTmpl) }

// Skill is /agent-skill.md as the server would answer it now.
func (o *Ops) Skill(ctx context.Context) (string, error) { return o.render(ctx, skillTmpl) }

func (o *Ops) render(ctx context.Context, t *template.Template) (string, error) {
	var buf bytes.Buffer
	err := t.Execute(&buf, o.guideData(ctx))
	return buf.String(), err
}

// advice is what an agent does on each code of CONTRACT.md section 2.
var advice = map[market.Code]string{
	market.CodeValidation:            "An argument is wrong: `details.fields` names each one and why. Fix those and call again; do not retry unchanged.",
	market.CodeShippingCostRequired:  "The listing ships at a calculated rate: get a quote (get_shipping_estimate / shipping rates) and send its rate id and cost.",
	market.CodeUnauthorized:          "The owner's session token is missing or expired; agents use their key instead (X-Agent-Key).",
	market.CodeInvalidAgentKey:       "The key is wrong, revoked or expired. Stop and ask the owner for a new key; do not retry.",
	market.CodeInvalidCredentials:    "The e-mail or password is wrong. Agents never log in with a password: ask the owner.",
	market.CodePaymentFailed:         "The card was declined. Tell the owner to update their payment method; do not retry with the same card.",
	market.CodeSCARequired:           "The bank wants the card holder to confirm the payment. Send the owner the link in `details` and wait for it.",
	market.CodePaymentMethodRequired: "The owner has no card on file. Ask them to add one in the marketplace, then retry.",
	market.CodeForbidden:             "The object belongs to someone else, or the action is not yours to take. Do not retry.",
	market.CodeInsufficientScope:     "The key's scope does not allow this (buy, sell). Ask the owner for a key with the scope it needs.",
	market.CodeAgentFrozen:           "The owner has frozen this key. Stop all actions and tell the owner; only they can unfreeze it.",
	market.CodeOwnerNotVerified:      "The owner has not finished identity verification. Tell them to complete it (the onboarding link), then retry.",
	market.CodeSpendingLimitExceeded: "A spending cap would be exceeded; `details` gives limit_type, limit and remaining. Buy something cheaper, wait for the period to reset, or ask the owner to raise the cap.",
	market.CodeCategoryRestricted:    "The owner does not let this key buy in that category. Choose another item or ask the owner.",
	market.CodeAccountSuspended:      "The owner's account is suspended. Stop and tell the owner.",
	market.CodeCannotBuyOwnListing:   "The listing is the owner's own. Choose another.",
	market.CodeApprovalRequired:      "Not an error: the purchase waits for the owner's approval (`details.approvalId`, `details.orderId`). Tell the owner and check the order later; do not buy again.",
	market.CodeRateLimited:           "Too many calls. Wait the seconds in `Retry-After` (or a few seconds) and retry.",
	market.CodeListingNotFound:       "No such listing (or it was removed). Search again.",
	market.CodeNotFound:              "No such object, or not one you may see. Check the id; do not retry unchanged.",
	market.CodeListingNotAvailable:   "The listing cannot be bought now (reserved, held or ended). Search for another or try later.",
	market.CodeListingSold:           "Someone else bought it. Search for another.",
	market.CodePriceChanged:          "The price moved since you read it; `details` has the new price. Read the listing again and decide again.",
	market.CodeMaxPriceExceeded:      "The price is above your max_price. Do not raise max_price without the owner's consent; make an offer instead.",
	market.CodeDuplicateRequest:      "The same idempotency key came with a different request. Use a new key for a new purchase; reuse a key only to retry the same one.",
	market.CodeActiveOfferExists:     "You already have an open offer on this listing. Wait for the answer or withdraw it first.",
	market.CodeMaxRoundsReached:      "The negotiation has used its rounds. Accept or reject the last offer.",
	market.CodeOfferExpired:          "The offer expired. Make a new one if you still want the item.",
	market.CodeOfferNotAccepted:      "The offer is not accepted (yet). Wait for the seller, or buy at the listed price.",
	market.CodeInvalidState:          "The object is not in a state that allows this now (e.g. shipping an unpaid order). Read it again and act on its status.",
	market.CodeEmailTaken:            "That e-mail already has an account: the owner should log in (or use agent onboarding with it).",
	market.CodeUsernameTaken:         "Pick another username.",
	market.CodeOffersDisabled:        "The seller does not take offers on this listing. Buy at the listed price or move on.",
	market.CodeBelowMinimum:          "The offer is below the seller's minimum. Offer more or move on.",
	market.CodeListingRestricted:     "The item is not allowed on the marketplace. Do not retry.",
	market.CodePayloadTooLarge:       "The request or upload is too large. Send less (smaller photos, shorter text).",
	market.CodeMethodNotAllowed:      "The path exists but not with this HTTP method. Check the OpenAPI document.",
	market.CodeInternal:              "A fault on the server. Retry later with the same idempotency key; report the request id if it persists.",
	market.CodeUnavailable:           "The service or a feature is unavailable for now. Retry later with backoff.",
	market.CodeFeatureDisabled:       "An operator has switched this feature off (details.flag names it). Do not retry in a loop; try again much later or use another path.",
}

// Advice is what an agent should do on code.
func Advice(c market.Code) string {
	if a, ok := advice[c]; ok {
		return a
	}
	return "See the error's message and details."
}
