package httpapi_test

import (
	"errors"
	"testing"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
)

// These mirror the request bodies of the account and key routes (apiv1),
// so the fuzzer meets the same field types the handlers decode into.
type fuzzRegister struct {
	Email         string `json:"email"`
	Password      string `json:"password"`
	DisplayName   string `json:"displayName"`
	Username      string `json:"username"`
	AcceptedTerms bool   `json:"acceptedTerms"`
}

type fuzzLimits struct {
	PerTransactionLimit *int64 `json:"perTransactionLimit"`
	DailyLimit          *int64 `json:"dailyLimit"`
	WeeklyLimit         *int64 `json:"weeklyLimit"`
	MonthlyLimit        *int64 `json:"monthlyLimit"`
}

type fuzzKey struct {
	Label              string         `json:"label"`
	Scope              string         `json:"scope"`
	SpendingControls   *fuzzLimits    `json:"spendingControls"`
	Metadata           map[string]any `json:"metadata"`
	AcceptedAgentTerms bool           `json:"acceptedAgentTerms"`
}

type fuzzSpending struct {
	PerTransactionLimit  *int64             `json:"perTransactionLimit"`
	DailyLimit           *int64             `json:"dailyLimit"`
	WeeklyLimit          *int64             `json:"weeklyLimit"`
	MonthlyLimit         *int64             `json:"monthlyLimit"`
	CategoryRestrictions *[]string          `json:"categoryRestrictions"`
	ApprovalThreshold    httpapi.Opt[int64] `json:"approvalThreshold"`
}

type fuzzAddress struct {
	Name      string `json:"name"`
	Line1     string `json:"line1"`
	Line2     string `json:"line2"`
	City      string `json:"city"`
	State     string `json:"state"`
	Zip       string `json:"zip"`
	Country   string `json:"country"`
	Phone     string `json:"phone"`
	IsDefault bool   `json:"isDefault"`
}

type fuzzProfile struct {
	DisplayName *string             `json:"displayName"`
	Username    *string             `json:"username"`
	AvatarURL   httpapi.Opt[string] `json:"avatarUrl"`
}

var fuzzSeeds = []string{
	`{"email":"ann@example.com","password":"correct horse battery","displayName":"Ann","username":"ann","acceptedTerms":true}`,
	`{"email":"ann@example.com","password":"correct horse battery"}`,
	`{"label":"shopper","scope":"buy_only","acceptedAgentTerms":true,"spendingControls":{"perTransactionLimit":5000,"dailyLimit":20000,"weeklyLimit":null,"monthlyLimit":100000},"metadata":{"model":"x","n":[1,2,{"a":null}]}}`,
	`{"perTransactionLimit":5000,"dailyLimit":null,"categoryRestrictions":["electronics","books"],"approvalThreshold":null}`,
	`{"approvalThreshold":2500}`,
	`{"approvalThreshold":"2500"}`,
	`{"approvalThreshold":1.5}`,
	`{"approvalThreshold":1e400}`,
	`{"approvalThreshold":{}}`,
	`{"name":"Ann","line1":"1 Main St","line2":"","city":"Springfield","state":"IL","zip":"62701","country":"US","phone":"+15555550100","isDefault":true}`,
	`{"displayName":"Ann","username":null,"avatarUrl":null}`,
	`{"dailyLimit":99999999999999999999}`,
	`{"spendingControls":[]}`,
	`{"acceptedTerms":"yes"}`,
	`{"email":"a"}{"email":"b"}`,
	`{"email":"a"} trailing`,
	`[1,2,3]`,
	`"just a string"`,
	`null`,
	`{"email":"\ud800"}`,
	`{"email":`,
	``,
	"   \n\t",
	`{"metadata":{"a":{"b":{"c":{"d":[[[[[]]]]]}}}}}`,
}

// FuzzDecode: DecodeBytes never panics, and every refusal is a
// VALIDATION_ERROR naming at least one field with a message, whatever the
// body and whichever of the account and key bodies it is decoded into.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	targets := []func() any{
		func() any { return new(fuzzRegister) },
		func() any { return new(fuzzKey) },
		func() any { return new(fuzzSpending) },
		func() any { return new(fuzzAddress) },
		func() any { return new(fuzzProfile) },
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, newDst := range targets {
			dst := newDst()
			err := httpapi.DecodeBytes(body, dst)
			if err == nil {
				continue
			}
			var me *market.Error
			if !errors.As(err, &me) {
				t.Fatalf("%T: error is %T (%v), not a *market.Error", dst, err, err)
			}
			if me.Code != market.CodeValidation {
				t.Fatalf("%T: code %s, want %s (%v)", dst, me.Code, market.CodeValidation, err)
			}
			if me.Message == "" {
				t.Fatalf("%T: empty message", dst)
			}
			if len(me.Fields) == 0 {
				t.Fatalf("%T: VALIDATION_ERROR without fields: %v", dst, err)
			}
			for _, fe := range me.Fields {
				if fe.Field == "" || fe.Message == "" {
					t.Fatalf("%T: incomplete field error %+v", dst, fe)
				}
			}
		}
	})
}

// TestDecodeExamples pins the outcomes the fuzz property alone would not:
// which bodies are accepted, what they decode to, and which field a
// refusal names.
func TestDecodeExamples(t *testing.T) {
	t.Run("accepted", func(t *testing.T) {
		var s fuzzSpending
		if err := httpapi.DecodeBytes([]byte(`{"dailyLimit":20000,"approvalThreshold":null}`), &s); err != nil {
			t.Fatal(err)
		}
		if s.DailyLimit == nil || *s.DailyLimit != 20000 {
			t.Errorf("dailyLimit %v, want 20000", s.DailyLimit)
		}
		if !s.ApprovalThreshold.Set || !s.ApprovalThreshold.Null || s.ApprovalThreshold.Ptr() != nil {
			t.Errorf("approvalThreshold null decoded as %+v", s.ApprovalThreshold)
		}
		var absent fuzzSpending
		if err := httpapi.DecodeBytes([]byte(`{"unknownField":1}`), &absent); err != nil {
			t.Fatalf("unknown fields are ignored, got %v", err)
		}
		if absent.ApprovalThreshold.Set {
			t.Error("an absent approvalThreshold reads as set")
		}
		var k fuzzKey
		if err := httpapi.DecodeBytes([]byte(fuzzSeeds[2]), &k); err != nil {
			t.Fatal(err)
		}
		if k.SpendingControls == nil || k.SpendingControls.PerTransactionLimit == nil || *k.SpendingControls.PerTransactionLimit != 5000 || k.SpendingControls.WeeklyLimit != nil {
			t.Errorf("spendingControls decoded as %+v", k.SpendingControls)
		}
	})

	refused := []struct {
		name, body string
		dst        any
		field      string
	}{
		{"empty", ``, new(fuzzRegister), "body"},
		{"blank", " \n", new(fuzzRegister), "body"},
		{"truncated", `{"email":`, new(fuzzRegister), "body"},
		{"two values", `{"email":"a"}{"email":"b"}`, new(fuzzRegister), "body"},
		{"array body", `[1]`, new(fuzzRegister), "body"},
		{"string for bool", `{"acceptedTerms":"yes"}`, new(fuzzRegister), "acceptedTerms"},
		{"number for string", `{"email":5}`, new(fuzzRegister), "email"},
		{"fraction for cents", `{"dailyLimit":1.5}`, new(fuzzSpending), "dailyLimit"},
		{"out of range cents", `{"dailyLimit":99999999999999999999}`, new(fuzzSpending), "dailyLimit"},
		{"nested wrong type", `{"spendingControls":{"dailyLimit":"ten"}}`, new(fuzzKey), "spendingControls.dailyLimit"},
		{"array for object", `{"spendingControls":[]}`, new(fuzzKey), "spendingControls"},
		{"string for optional cents", `{"approvalThreshold":"2500"}`, new(fuzzSpending), "approvalThreshold"},
		{"fraction for optional cents", `{"approvalThreshold":1.5}`, new(fuzzSpending), "approvalThreshold"},
		{"number for optional string", `{"avatarUrl":5}`, new(fuzzProfile), "avatarUrl"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			err := httpapi.DecodeBytes([]byte(tc.body), tc.dst)
			var me *market.Error
			if !errors.As(err, &me) || me.Code != market.CodeValidation {
				t.Fatalf("got %v, want VALIDATION_ERROR", err)
			}
			if len(me.Fields) != 1 || me.Fields[0].Field != tc.field {
				t.Errorf("fields %+v, want one naming %q", me.Fields, tc.field)
			}
		})
	}
}
