package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ORTPackage is the ONNX Runtime the comparison times: npm's
// onnxruntime-node, whose package carries the CPU library (its install
// script only fetches GPU files, so it installs with --ignore-scripts).
const ORTPackage = "onnxruntime-node@1.30.0"

// ORTInstallHint is what to do when ONNX Runtime cannot be run.
const ORTInstallHint = "ONNX Runtime was not run: it needs node and npm (`apt-get install -y nodejs npm`, Debian), which install " + ORTPackage + " into the user's cache directory on first use"

// InstallORT returns a directory holding node_modules/onnxruntime-node,
// installing ORTPackage there on first use: hybridgo/onnxruntime in the
// user's cache directory, where the tests of package onnx install it too.
func InstallORT() (string, error) {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", fmt.Errorf("%s is not installed", tool)
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "hybridgo", "onnxruntime")
	if _, err := ortVersion(dir); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cmd := exec.Command("npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", ORTPackage)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install %s in %s: %v\n%s", ORTPackage, dir, err, out)
	}
	return dir, nil
}

// ortVersion reads the version of the onnxruntime-node installed in dir.
func ortVersion(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "onnxruntime-node", "package.json"))
	if err != nil {
		return "", err
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(b, &pkg); err != nil {
		return "", err
	}
	if pkg.Version == "" {
		return "", fmt.Errorf("%s: no version in onnxruntime-node's package.json", dir)
	}
	return pkg.Version, nil
}
