package pricing

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// RunPodEndpoint is RunPod's GraphQL API; it needs RUNPOD_API_KEY.
const RunPodEndpoint = "https://api.runpod.io/graphql"

// RunPodKeyVar holds the API key. It is sent in the Authorization header,
// never in a URL, and never printed or written.
const RunPodKeyVar = "RUNPOD_API_KEY"

const runpodQuery = `query GpuTypes { gpuTypes { id displayName memoryInGb secureCloud communityCloud securePrice communityPrice } }`

type runpodAnswer struct {
	Data *struct {
		GPUTypes []runpodGPU `json:"gpuTypes"`
	} `json:"data"`
	Errors []struct {
		Message string `json:"message"`
		Path    []any  `json:"path"`
	} `json:"errors"`
}

type runpodGPU struct {
	ID             string   `json:"id"`
	DisplayName    string   `json:"displayName"`
	MemoryInGb     float64  `json:"memoryInGb"`
	SecureCloud    bool     `json:"secureCloud"`
	CommunityCloud bool     `json:"communityCloud"`
	SecurePrice    *float64 `json:"securePrice"`
	CommunityPrice *float64 `json:"communityPrice"`
}

// fetchRunPod reads every GPU type's on-demand price per GPU-hour: the
// lower of Secure Cloud (RunPod's own data centres) and Community Cloud
// among those the type is offered in — both are on-demand, neither
// interruptible; the region field says which cloud the price is.
func fetchRunPod(ctx context.Context, c *client, endpoint string, _ []SKU, env func(string) string) (*fetchResult, error) {
	key := strings.TrimSpace(env(RunPodKeyVar))
	if key == "" {
		return nil, fmt.Errorf("runpod: %s is not set: RunPod's GraphQL API needs an API key", RunPodKeyVar)
	}
	c.secrets = append(c.secrets, key)
	body, _ := json.Marshal(map[string]string{"query": runpodQuery})
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Authorization", "Bearer "+key)
	b, err := c.do(ctx, "POST", endpoint, body, h)
	if err != nil {
		return nil, err
	}
	var ans runpodAnswer
	if err := json.Unmarshal(b, &ans); err != nil {
		return nil, fmt.Errorf("runpod: POST %s: unexpected answer: %w", showURL(endpoint), err)
	}
	if len(ans.Errors) > 0 {
		msgs := make([]string, 0, len(ans.Errors))
		for _, e := range ans.Errors {
			msgs = append(msgs, c.redact(e.Message))
		}
		return nil, fmt.Errorf("runpod: POST %s: GraphQL errors: %s", showURL(endpoint), strings.Join(msgs, "; "))
	}
	if ans.Data == nil || ans.Data.GPUTypes == nil {
		return nil, fmt.Errorf("runpod: POST %s: answer has no data.gpuTypes: the API's shape changed", showURL(endpoint))
	}
	res := &fetchResult{Scope: "on-demand price per GPU-hour: the lower of Secure Cloud and Community Cloud where the GPU type is offered; spot and savings-plan prices not read"}
	types := ans.Data.GPUTypes
	sort.Slice(types, func(i, j int) bool { return types[i].ID < types[j].ID })
	for _, g := range types {
		var best *offer
		for _, c := range []struct {
			offered bool
			price   *float64
			name    string
		}{{g.SecureCloud, g.SecurePrice, "Secure Cloud"}, {g.CommunityCloud, g.CommunityPrice, "Community Cloud"}} {
			if !c.offered || c.price == nil {
				continue
			}
			// A zero price where the type is offered is kept, so the sync
			// refuses it rather than hiding it.
			if best == nil || *c.price < best.USDPerHour {
				best = &offer{SKU: g.ID, USDPerHour: *c.price, Currency: "USD", Region: c.name}
			}
		}
		if best == nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: offered in neither cloud, skipped", g.ID))
			continue
		}
		res.Offers = append(res.Offers, *best)
	}
	return res, nil
}
