package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// Budgets of a PDF's child process: memory it may map (PDFMemoryLimit),
// CPU time (pdfCPUBase plus pdfCPUPerMB for each MiB of the file, at most
// pdfCPUMax), and wall time (pdfWallFactor times the CPU time, for a busy
// machine). A hostile file of a few hundred bytes that loops is refused
// after pdfCPUBase; a 20 MiB report may take minutes of CPU.
const (
	PDFMemoryLimit = 320 << 20
	pdfCPUBase     = 3
	pdfCPUPerMB    = 8
	pdfCPUMax      = 300
	pdfWallFactor  = 4
)

// pdfChildEnv, set in a process's environment, makes it a PDF reader: at
// start (before main) it reads a PDF from its standard input, writes the
// text to its standard output and exits (see pdfChildMain). Any program
// that links this package can be its own reader: kgstudio, and the test
// binaries.
const pdfChildEnv = "KGSTUDIO_INTERNAL_PDF_READER"

// pdfChildRefused starts the standard error of a child that refused the
// file with a reason of its own.
const pdfChildRefused = "refused: "

func init() {
	if spec := os.Getenv(pdfChildEnv); spec != "" {
		os.Exit(pdfChildMain(spec, os.Stdin, os.Stdout, os.Stderr))
	}
}

// pdfSlots bounds how many PDF readers run at once.
var pdfSlots = make(chan struct{}, max(2, runtime.NumCPU()))

// runPDFChild reads a PDF's text in a child process on a budget.
func runPDFChild(ctx context.Context, name string, data []byte, maxBytes int) ([]byte, error) {
	select {
	case pdfSlots <- struct{}{}:
		defer func() { <-pdfSlots }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	cpu := min(pdfCPUBase+pdfCPUPerMB*len(data)>>20, pdfCPUMax)
	wall := time.Duration(cpu*pdfWallFactor) * time.Second
	cctx, cancel := context.WithTimeout(ctx, wall)
	defer cancel()
	cmd := exec.CommandContext(cctx, selfExecutable())
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d,%d,%d,%s", pdfChildEnv, maxBytes, cpu, PDFMemoryLimit, name))
	cmd.Stdin = bytes.NewReader(data)
	var out, stderr bytes.Buffer
	cmd.Stdout = &limitedBuffer{b: &out, max: maxBytes + 2}
	cmd.Stderr = &limitedBuffer{b: &stderr, max: 4 << 10}
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	switch {
	case err == nil:
		return out.Bytes(), nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case cctx.Err() != nil:
		return nil, Errorf(KindInvalid, "%s took more than %s to read as a PDF (damaged or built to loop): refused", name, wall)
	}
	msg := stderr.String()
	if m, ok := strings.CutPrefix(msg, pdfChildRefused); ok {
		return nil, Errorf(KindInvalid, "%s", strings.TrimSpace(m))
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return nil, fmt.Errorf("start the PDF reader for %s: %w", name, err)
	}
	if strings.Contains(msg, "out of memory") || strings.Contains(msg, "cannot allocate memory") {
		return nil, Errorf(KindInvalid, "%s needs more than %d MiB to read as a PDF (a compressed stream that unpacks to too much?): refused", name, PDFMemoryLimit>>20)
	}
	if st := exit.ProcessState; st != nil && st.UserTime()+st.SystemTime() >= time.Duration(cpu)*time.Second-100*time.Millisecond {
		return nil, Errorf(KindInvalid, "%s took more than %d s of CPU to read as a PDF (damaged or built to loop): refused", name, cpu)
	}
	if strings.Contains(msg, "goroutine stack exceeds") {
		return nil, Errorf(KindInvalid, "%s nests too deep to read as a PDF: refused", name)
	}
	return nil, Errorf(KindInvalid, "%s could not be read as a PDF within %d s of CPU and %d MiB (%s): refused", name, cpu, PDFMemoryLimit>>20, exit)
}

// selfExecutable is the running program's file, read through /proc where
// there is one (it stays readable when the file was replaced).
func selfExecutable() string {
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe"
	}
	exe, err := os.Executable()
	if err != nil {
		return os.Args[0]
	}
	return exe
}

// limitedBuffer keeps at most max bytes and fails past them, so a child
// cannot fill the parent's memory.
type limitedBuffer struct {
	b   *bytes.Buffer
	max int
}

func (w *limitedBuffer) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > w.max {
		return 0, errors.New("output over its limit")
	}
	return w.b.Write(p)
}

// pdfChildMain is a PDF reader process: spec is "MAXBYTES,CPUSECONDS,
// MEMORY,NAME". It limits itself, reads the PDF from in and writes its
// text to out; a refusal goes to errw after pdfChildRefused. It returns
// the exit code.
func pdfChildMain(spec string, in io.Reader, out, errw io.Writer) int {
	parts := strings.SplitN(spec, ",", 4)
	if len(parts) != 4 {
		fmt.Fprintln(errw, "bad PDF reader spec")
		return 2
	}
	maxBytes, err1 := strconv.Atoi(parts[0])
	cpu, err2 := strconv.Atoi(parts[1])
	mem, err3 := strconv.Atoi(parts[2])
	if err := errors.Join(err1, err2, err3); err != nil {
		fmt.Fprintln(errw, "bad PDF reader spec:", err)
		return 2
	}
	limitProcess(cpu, mem)
	debug.SetMemoryLimit(int64(mem) * 3 / 4)
	debug.SetMaxStack(64 << 20)
	data, err := io.ReadAll(in)
	if err != nil {
		fmt.Fprintln(errw, "read the PDF:", err)
		return 2
	}
	text, err := pdfTextLocal(parts[3], data, maxBytes)
	if err != nil {
		fmt.Fprint(errw, pdfChildRefused+MessageOf(err))
		return 1
	}
	if _, err := out.Write(text); err != nil {
		return 2
	}
	return 0
}
