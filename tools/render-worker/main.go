// Command render-worker renders Helm charts for the GitOpsHQ hub, one request at a time, in a
// process of its own.
//
// It is built from Helm's module (helm.sh/helm/v3: the chart loader, chartutil and the template
// engine) and nothing else of Helm: no action package, no Kubernetes client, no kubeconfig is
// ever read. The engine is used without a client, so a template's lookup (also one reached
// through tpl) returns an empty map by construction.
//
// Protocol (stdin to stdout): every message is a frame, a 4-byte big-endian length followed by
// that many bytes of JSON. The hub writes one request and reads one response before it writes
// the next. A request:
//
//	{"chart": "<base64 of the .tgz>", "name": "...", "namespace": "...", "values": {...},
//	 "kubeVersion": "", "apiVersions": []}
//
// "chart" may be left out to render the chart of the previous request again (the hub knows which
// chart each process holds). A response:
//
//	{"manifest": "...", "notes": "..."}                the rendered manifests, as helm template
//	                                                    prints them (without hooks and NOTES), and
//	                                                    the chart's rendered NOTES.txt
//	{"error": "...", "stage": "load" | "render"}       the chart does not load, or does not render
//
// Limits: a frame larger than -max-frame bytes ends the process (exit 4); a manifest longer than
// -max-output bytes is an error response; a render longer than -deadline ends the process (exit
// 5; the hub kills it earlier, this holds when the hub is gone). Memory: Go's soft limit (debug.SetMemoryLimit) is three
// quarters of -memory-limit; a watchdog reads the process's resident memory every 10 ms and exits
// with status 3 as soon as it passes -memory-limit, and RLIMIT_AS stops any single allocation that
// would take the address space far past it. The hub kills a process whose render passes its
// deadline and starts another. End of input: exit 0.
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	pkgerrors "github.com/pkg/errors"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"
	sigsyaml "sigs.k8s.io/yaml"
)

// Exit statuses the hub tells apart.
const (
	exitMemory   = 3
	exitFrame    = 4
	exitDeadline = 5
)

type request struct {
	Chart       []byte          `json:"chart,omitempty"`
	Name        string          `json:"name"`
	Namespace   string          `json:"namespace"`
	Values      json.RawMessage `json:"values,omitempty"`
	KubeVersion string          `json:"kubeVersion,omitempty"`
	APIVersions []string        `json:"apiVersions,omitempty"`
}

// unpacked is a chart archive's files (or why it could not be unpacked).
type unpacked struct {
	files []*loader.BufferedFile
	err   error
}

type response struct {
	Manifest string `json:"manifest,omitempty"`
	Notes    string `json:"notes,omitempty"`
	Error    string `json:"error,omitempty"`
	Stage    string `json:"stage,omitempty"`
}

func main() {
	memoryLimit := flag.Int64("memory-limit", 256<<20, "bytes of resident memory after which the process exits (status 3)")
	maxFrame := flag.Int("max-frame", 64<<20, "the largest request frame, in bytes")
	maxOutput := flag.Int("max-output", 16<<20, "the longest manifest one render may produce, in bytes")
	deadline := flag.Duration("deadline", 0, "the longest one render may take before the process exits (status 5); 0 for none")
	gcPercent := flag.Int("gc-percent", 800, "Go's GOGC: how far the heap may grow over its live size before a collection")
	flag.Parse()

	// The live heap between renders is a few MiB: at Go's default (100) it would collect every
	// few renders and spend about a quarter of the render's CPU on it (measured when Helm ran in
	// the hub, docs/operations.md). The memory limit below still bounds the heap.
	debug.SetGCPercent(*gcPercent)

	// Nothing but frames goes to stdout: anything Helm or Go prints goes to stderr. (The one
	// *os.File of fd 1 is kept: a second one would close the descriptor when collected.)
	out := os.Stdout
	os.Stdout = os.Stderr

	limitMemory(*memoryLimit)

	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	w := bufio.NewWriterSize(out, 64<<10)
	// The files of the last chart sent, unpacked once: every render loads the chart from them
	// afresh (loader.LoadFiles builds new objects each time; the files are only read).
	var last *unpacked
	for {
		frame, err := readFrame(in, *maxFrame)
		if errors.Is(err, io.EOF) {
			os.Exit(0)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "render-worker: %v\n", err)
			os.Exit(exitFrame)
		}
		var req request
		var resp response
		if err := json.Unmarshal(frame, &req); err != nil {
			resp = response{Error: "the request is not valid JSON: " + err.Error(), Stage: "protocol"}
		} else {
			if len(req.Chart) > 0 {
				files, err := loader.LoadArchiveFiles(bytes.NewReader(req.Chart))
				last = &unpacked{files: files, err: err}
			}
			frame, req.Chart = nil, nil
			if last == nil {
				resp = response{Error: "the request carries no chart and none was sent before", Stage: "protocol"}
			} else {
				resp = renderWithin(*deadline, last, &req, *maxOutput)
			}
		}
		body, err := json.Marshal(&resp)
		if err != nil {
			fmt.Fprintf(os.Stderr, "render-worker: cannot encode the response: %v\n", err)
			os.Exit(1)
		}
		if err := writeFrame(w, body); err != nil {
			fmt.Fprintf(os.Stderr, "render-worker: cannot write the response: %v\n", err)
			os.Exit(1)
		}
	}
}

func readFrame(r *bufio.Reader, max int) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("input ended inside a frame header")
		}
		return nil, err
	}
	n := binary.BigEndian.Uint32(head[:])
	if uint64(n) > uint64(max) {
		return nil, fmt.Errorf("a request frame of %d bytes is over the limit of %d", n, max)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("input ended inside a frame of %d bytes", n)
	}
	return buf, nil
}

func writeFrame(w *bufio.Writer, body []byte) error {
	var head [4]byte
	binary.BigEndian.PutUint32(head[:], uint32(len(body)))
	if _, err := w.Write(head[:]); err != nil {
		return err
	}
	if _, err := w.Write(body); err != nil {
		return err
	}
	return w.Flush()
}

// renderWithin renders, and ends the process if the render passes the deadline: the hub kills a
// worker past its deadline, and this holds also when the hub is gone and nobody would.
func renderWithin(deadline time.Duration, archive *unpacked, req *request, maxOutput int) response {
	if deadline > 0 {
		timer := time.AfterFunc(deadline, func() {
			fmt.Fprintf(os.Stderr, "render-worker: a render passed the deadline of %s\n", deadline)
			os.Exit(exitDeadline)
		})
		defer timer.Stop()
	}
	return render(archive, req, maxOutput)
}

// render does what helm template (client-only install, dry run) does with one chart archive,
// without any Kubernetes client: load, check installable and dependencies, validate the release
// name, process dependencies, build the values (schema validated) and render, then print the
// manifests (hooks and NOTES left out) in install order, each after its "# Source:" line.
func render(archive *unpacked, req *request, maxOutput int) (resp response) {
	defer func() {
		if p := recover(); p != nil {
			resp = response{Error: fmt.Sprintf("Helm panicked: %v", p), Stage: "render"}
		}
	}()
	// loader.LoadArchive, in two steps: the archive was unpacked when it came.
	if archive.err != nil {
		return response{Error: archive.err.Error(), Stage: "load"}
	}
	ch, err := loader.LoadFiles(archive.files)
	if err != nil {
		return response{Error: err.Error(), Stage: "load"}
	}
	fail := func(err error) response { return response{Error: err.Error(), Stage: "render"} }
	switch ch.Metadata.Type {
	case "", "application":
	default:
		return fail(fmt.Errorf("%s charts are not installable", ch.Metadata.Type))
	}
	if reqs := ch.Metadata.Dependencies; reqs != nil {
		if err := checkDependencies(ch, reqs); err != nil {
			return fail(pkgerrors.Wrap(err, "An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies"))
		}
	}
	vals := map[string]interface{}{}
	if len(req.Values) > 0 && string(req.Values) != "null" {
		// The values as Helm reads a values file (sigs.k8s.io/yaml: numbers become float64).
		if err := sigsyaml.Unmarshal(req.Values, &vals); err != nil {
			return fail(pkgerrors.Wrap(err, "failed to parse the values"))
		}
	}
	if err := chartutil.ValidateReleaseName(req.Name); err != nil {
		return fail(pkgerrors.Wrapf(err, "release name %q", req.Name))
	}
	if err := chartutil.ProcessDependenciesWithMerge(ch, vals); err != nil {
		return fail(err)
	}
	caps := chartutil.DefaultCapabilities.Copy()
	if req.KubeVersion != "" {
		kv, err := chartutil.ParseKubeVersion(req.KubeVersion)
		if err != nil {
			return fail(err)
		}
		caps.KubeVersion = *kv
	}
	caps.APIVersions = append(caps.APIVersions, req.APIVersions...)
	options := chartutil.ReleaseOptions{Name: req.Name, Namespace: req.Namespace, Revision: 1, IsInstall: true}
	values, err := chartutil.ToRenderValuesWithSchemaValidation(ch, vals, options, caps, false)
	if err != nil {
		return fail(err)
	}
	if ch.Metadata.KubeVersion != "" && !chartutil.IsCompatibleRange(ch.Metadata.KubeVersion, caps.KubeVersion.String()) {
		return fail(pkgerrors.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", ch.Metadata.KubeVersion, caps.KubeVersion.String()))
	}
	// The zero Engine has no client: lookup returns an empty map, DNS lookups return "".
	var e engine.Engine
	files, err := e.Render(ch, values)
	if err != nil {
		return fail(err)
	}
	// NOTES.txt is rendered like the templates but is no manifest: the chart's own is returned
	// beside the manifest (as helm install prints it), every NOTES.txt is left out of it.
	var notes string
	for name, text := range files {
		if strings.HasSuffix(name, "NOTES.txt") {
			if name == path.Join(ch.Name(), "templates", "NOTES.txt") {
				notes = text
			}
			delete(files, name)
		}
	}
	_, manifests, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	if err != nil {
		return fail(err)
	}
	var b strings.Builder
	for _, m := range manifests {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", m.Name, m.Content)
		if b.Len() > maxOutput+1024 {
			break
		}
	}
	manifest := strings.TrimSpace(b.String()) + "\n"
	if len(manifest) > maxOutput {
		return fail(fmt.Errorf("the chart printed more than the %d bytes one render may produce", maxOutput))
	}
	return response{Manifest: manifest, Notes: notes}
}

// checkDependencies is Helm's action.CheckDependencies (the action package would bring a
// Kubernetes client into this program).
func checkDependencies(ch *chart.Chart, reqs []*chart.Dependency) error {
	var missing []string
OUTER:
	for _, r := range reqs {
		for _, d := range ch.Dependencies() {
			if d.Name() == r.Name {
				continue OUTER
			}
		}
		missing = append(missing, r.Name)
	}
	if len(missing) > 0 {
		return pkgerrors.Errorf("found in Chart.yaml, but missing in charts/ directory: %s", strings.Join(missing, ", "))
	}
	return nil
}

// limitMemory sets Go's soft limit, a watchdog on resident memory and a ceiling on the address
// space.
func limitMemory(limit int64) {
	if limit <= 0 {
		return
	}
	debug.SetMemoryLimit(limit / 4 * 3)
	// RLIMIT_AS: a single huge allocation (strings.Repeat of gigabytes) fails in mmap at once,
	// before it could touch that memory; Go then exits with "out of memory". Generous, since Go
	// reserves address space it never touches: what the process has mapped now plus 4 times the
	// limit.
	if vsz := statm(0); vsz > 0 {
		ceiling := uint64(vsz) + 4*uint64(limit)
		_ = syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: ceiling, Max: ceiling})
	}
	go func() {
		for {
			time.Sleep(10 * time.Millisecond)
			if rss := statm(1); rss > limit {
				fmt.Fprintf(os.Stderr, "render-worker: resident memory %d MiB is over the limit of %d MiB\n", rss>>20, limit>>20)
				os.Exit(exitMemory)
			}
		}
	}()
}

var pageSize = int64(os.Getpagesize())

// statm reads field i of /proc/self/statm (0: size, 1: resident) in bytes; -1 when unreadable.
func statm(i int) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return -1
	}
	fields := strings.Fields(string(b))
	if len(fields) <= i {
		return -1
	}
	n, err := strconv.ParseInt(fields[i], 10, 64)
	if err != nil {
		return -1
	}
	return n * pageSize
}
