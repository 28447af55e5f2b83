package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanDeepseekV4: plan --config on DeepSeek-V4-Flash sizes its tensors
// and its cache per sequence at a context, and leaves what it cannot size
// (KV per token, the per-GPU serving split) unknown naming compress_ratios,
// rather than sizing its layers as sliding-window attention.
func TestPlanDeepseekV4(t *testing.T) {
	path := filepath.Join("..", "modeltree", "testdata", "deepseek_v4", "deepseek-ai__DeepSeek-V4-Flash.config.json")
	code, doc, stderr := plan(t, path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	s := &doc.Facts
	// 284,332,240,471 main + 6,610,048,891 MTP (modeltree's check).
	wantInt(t, s, "params.total", 290_942_289_362)
	// modeltree/testdata/SOURCES.md: 2 window-only, 21 ratio-4, 20 ratio-128 layers.
	wantInt(t, s, "kv.bytes_at_context.131072", 2*128*512*2+21*((128+32768)*512*2+32768*128*2)+20*(128+1024)*512*2)
	for _, key := range []string{"kv.bytes_per_token", "arch.layer_kinds", "serving.1xH200.max_concurrency"} {
		f := s.Get(key)
		if f == nil || f.Value != nil || !strings.Contains(f.Reason, "compress_ratios") {
			t.Errorf("%s = %+v, want unknown naming compress_ratios", key, f)
		}
	}
}
