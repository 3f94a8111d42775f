package api

import (
	"testing"

	"marketplace/internal/agents"
	"marketplace/internal/market"
)

// TestCallerAllow pins the scope rule every route (httpapi.Router.Scope)
// and every tool applies: an agent's key must allow a buy or a sell
// operation; reads, humans and anonymous callers pass.
func TestCallerAllow(t *testing.T) {
	agent := func(scope agents.Scope) *Caller {
		return &Caller{Actor: market.Actor{Type: market.ActorAgent, UserID: "u1", KeyID: "k1"}, Key: &agents.Key{ID: "k1", Scope: scope}}
	}
	human := &Caller{Actor: market.Actor{Type: market.ActorUser, UserID: "u1"}}
	for _, c := range []struct {
		name   string
		caller *Caller
		op     agents.Op
		want   market.Code
	}{
		{"anonymous", nil, agents.OpBuy, ""},
		{"human buys", human, agents.OpBuy, ""},
		{"human sells", human, agents.OpSell, ""},
		{"sell key reads", agent(agents.ScopeSell), agents.OpRead, ""},
		{"buy key buys", agent(agents.ScopeBuy), agents.OpBuy, ""},
		{"buy key sells", agent(agents.ScopeBuy), agents.OpSell, market.CodeInsufficientScope},
		{"sell key buys", agent(agents.ScopeSell), agents.OpBuy, market.CodeInsufficientScope},
		{"buy_sell key sells", agent(agents.ScopeBuySell), agents.OpSell, ""},
		{"buy_sell key buys", agent(agents.ScopeBuySell), agents.OpBuy, ""},
	} {
		err := c.caller.Allow(c.op)
		if got := market.CodeOf(err); (err == nil) != (c.want == "") || (err != nil && got != c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
