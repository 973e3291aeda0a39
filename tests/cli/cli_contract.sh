#!/usr/bin/env bash
# The command-line contract: exit codes (0 ok, 1 failure, 2 usage), "error:" messages that name the
# file or option at fault, and the files `train` writes. Usage: cli_contract.sh path/to/redraw
set -u
redraw="$1"
. "$(dirname "$0")/../lib.sh"

cfg="$work/tiny.json"
tiny_config "$cfg" 30 5 adam

# --- usage errors: exit 2 ---
expect 2 "error:" -- "$redraw" train
expect 2 "--frobnicate" -- "$redraw" train "$samples/horse.png" --frobnicate
expect 2 "--size" -- "$redraw" train "$samples/horse.png" --config "$cfg" --size 12by7 --out "$work/x"
expect 2 "--backend" -- "$redraw" train "$samples/horse.png" --backend tpu
expect 2 "error:" -- "$redraw" train "$samples/horse.png" --preset classic --config "$cfg"
expect 2 "--bit-depth" -- "$redraw" render "$work/none.redraw" -o "$work/o.png" --bit-depth 12
expect 0 "train" -- "$redraw" --help
# a word that is neither a command nor a file is a typo, not an image for the desktop app
expect 2 "error: 'frob' is neither a command (gui, train, render, timelapse, info, sweep, export-weights, bench) nor an image file" -- "$redraw" frob
# --seed is a whole number in [0, 2^64 - 1]: no sign, no wrap-around, no rounding
expect 2 "--seed" -- "$redraw" train "$samples/horse.png" --config "$cfg" --seed -1 --out "$work/x"
expect 2 "--seed" -- "$redraw" train "$samples/horse.png" --config "$cfg" --seed 18446744073709551616 --out "$work/x"
expect 2 "--seed" -- "$redraw" train "$samples/horse.png" --config "$cfg" --seed 1e6 --out "$work/x"
# number options say what they need (not CLI11's "Value 0 not in range 0.000000 to 1.79769e+308")
expect 2 "--snapshot-cap-mb: must be a positive number, not '0'" -- "$redraw" train "$samples/horse.png" --config "$cfg" --snapshot-cap-mb 0 --out "$work/x"
expect 2 "--time-limit: must be a positive number, not 'soon'" -- "$redraw" gui --time-limit soon
# --size limits are usage errors found before any file is read (the inputs here do not exist)
expect 2 "--size" -- "$redraw" train "$work/missing.png" --config "$cfg" --size 99999x99999 --out "$work/x"
expect 2 "--size" -- "$redraw" train "$work/missing.png" --config "$cfg" --size 16385x16 --out "$work/x"
expect 2 "--size" -- "$redraw" render "$work/none.redraw" --size 99999x99999 -o "$work/o.png"
expect 2 "--size" -- "$redraw" render "$work/none.redraw" --size 40000x100 --compare "$samples/horse.png" -o "$work/o.png"
expect 2 "--size" -- "$redraw" timelapse "$work/none.redraw" --size 99999x99999 -o "$work/o.gif"
expect 2 "--size" -- "$redraw" timelapse "$work/none.redraw" --size 65536x16 -o "$work/o.gif"
# render writes PNG, 16-bit TIFF and float EXR: any other -o extension is refused before the model is read
expect 2 "-o: '$work/r.jpg'" -- "$redraw" render "$work/none.redraw" -o "$work/r.jpg"
expect 2 "-o: '$work/r'" -- "$redraw" render "$work/none.redraw" -o "$work/r"
expect 2 "-o: '$work/r.jpg'" -- "$redraw" render "$work/none.redraw" --compare "$samples/horse.png" -o "$work/r.jpg"
check '[ ! -e "$work/r.jpg" ] && [ ! -e "$work/r" ]'
# export-weights writes NAME.safetensors: a name that is only the extension, or no name, is refused
# saying so (not "must end in .safetensors", which it does), before the model is read
expect 2 "-o: '.safetensors' is only the extension: give the file a name before .safetensors" -- \
  "$redraw" export-weights "$work/none.redraw" -o .safetensors
expect 2 "-o: '$work/.SafeTensors' is only the extension" -- "$redraw" export-weights "$work/none.redraw" -o "$work/.SafeTensors"
expect 2 "-o: '$work/' names no file" -- "$redraw" export-weights "$work/none.redraw" -o "$work/"
expect 2 "-o: '$work/w.bin' must end in .safetensors" -- "$redraw" export-weights "$work/none.redraw" -o "$work/w.bin"
check '[ ! -e .safetensors ] && [ ! -e "$work/.SafeTensors" ] && [ ! -e "$work/w.bin" ]'

# --- failures: exit 1, naming the file ---
expect 1 "$work/missing.png" -- "$redraw" train "$work/missing.png" --config "$cfg" --out "$work/x"
printf 'this is not an image' >"$work/fake.png"
expect 1 "$work/fake.png" -- "$redraw" train "$work/fake.png" --config "$cfg" --out "$work/x"
head -c 2000 "$samples/horse.png" >"$work/trunc.png"
expect 1 "$work/trunc.png" -- "$redraw" train "$work/trunc.png" --config "$cfg" --out "$work/x"
python3 - "$work/huge.png" <<'PY'
import struct, sys, zlib
b = b'\x89PNG\r\n\x1a\n' + struct.pack('>I', 13) + b'IHDR' + struct.pack('>II', 900000, 900000) + bytes([8, 6, 0, 0, 0])
b += struct.pack('>I', zlib.crc32(b[12:29]))
open(sys.argv[1], 'wb').write(b)
PY
expect 1 "over the limit" -- "$redraw" train "$work/huge.png" --config "$cfg" --out "$work/x"
echo '{"model": {"hiden": [3]}}' >"$work/badkey.json"
expect 1 "model.hiden: unknown key" -- "$redraw" train "$samples/horse.png" --config "$work/badkey.json" --out "$work/x"
echo '{"model": ' >"$work/broken.json"
expect 1 "$work/broken.json" -- "$redraw" train "$samples/horse.png" --config "$work/broken.json" --out "$work/x"
expect 1 "Preset 'nope' not found" -- "$redraw" train "$samples/horse.png" --preset nope --out "$work/x"
expect 2 "--size: 40000x40000 is over the limit" -- "$redraw" train "$samples/horse.png" --config "$cfg" --size 40000x40000 --out "$work/x"
# --set KEY=VALUE: a field over the preset or config, named when wrong (exit 2, as a sweep's --set)
expect 2 "preset siren with --set model.omega=3: model.omega: unknown key" -- "$redraw" train "$samples/horse.png" --preset siren --set model.omega=3 --out "$work/x"
expect 2 "(schedule.lr_max is a field)" -- "$redraw" train "$samples/horse.png" --config "$cfg" --set optimizer.lr_max=1 --out "$work/x"
expect 2 "one value per field" -- "$redraw" train "$samples/horse.png" --preset siren --set model.omega_0=20,30 --out "$work/x"
expect 2 "preset gaussians with --set model.gaussians=0: model.gaussians: 0 is outside" -- "$redraw" gui --preset gaussians --set model.gaussians=0
# none of the failed runs above left an output folder behind: train creates it once its inputs are good
check '[ ! -e "$work/x" ]'
expect 1 "$work/missing.redraw" -- "$redraw" info "$work/missing.redraw"
expect 1 "$work/fake.png" -- "$redraw" render "$work/fake.png" -o "$work/o.png"
# --backend cuda fails clearly where there is no usable GPU, and trains where there is one.
if "$redraw" info --backends | grep -q "^cuda: no device\|^cuda: not compiled in\|^cuda: compiled in, unavailable"; then
  expect 1 "" -- "$redraw" train "$samples/horse.png" --config "$cfg" --backend cuda --out "$work/x"
  grep -qi "cuda" "$work/err" && echo "ok: --backend cuda names cuda" || { echo "FAIL: --backend cuda message"; failures=$((failures + 1)); }
  # --precision with the CPU is refused (it computes in fp32 only); auto says it falls back to fp32.
  expect 1 "the CPU backend computes in fp32 only" -- "$redraw" train "$samples/horse.png" --config "$cfg" --backend cpu --precision tf32 --out "$work/x"
  expect 0 "in fp32 (--precision tf32 needs a GPU)" -- "$redraw" train "$samples/horse.png" --config "$cfg" --max-side 16 --steps 2 --precision tf32 --out "$work/p"
else
  echo "note: a CUDA device is present: --backend cuda must train"
  expect 0 "" -- "$redraw" train "$samples/horse.png" --config "$cfg" --max-side 40 --steps 20 --backend cuda --precision tf32 --out "$work/gpu"
fi
expect 2 "--precision" -- "$redraw" train "$samples/horse.png" --config "$cfg" --precision fp16 --out "$work/x"
# auto (the default) is accepted on every backend; the instant preset (hash grid) trains and its
# model renders and reports.
expect 0 "" -- "$redraw" train "$samples/horse.png" --preset instant --max-side 32 --steps 6 --backend cpu --precision auto --out "$work/instant"
expect 0 "HashGrid" -- "$redraw" info "$work/instant/model.redraw"
# --set before the image takes one KEY=VALUE each time; the model records what was set
expect 0 "" -- "$redraw" train --set model.gaussians=900 --set 'model.hidden=[]' "$samples/horse.png" --preset gaussians --max-side 32 --steps 2 --quiet --out "$work/set"
expect 0 '"gaussians": 900' -- "$redraw" info "$work/set/model.redraw"
expect 0 "" -- "$redraw" render "$work/instant/model.redraw" --size 70x50 -o "$work/instant/big.png"
check '[ ! -e "$work/x" ]' # nor did a backend that could not start

# --- a real run ---
expect 0 "" -- "$redraw" train "$samples/horse.png" --config "$cfg" --max-side 40 --steps 20 --out "$work/run" --checkpoint-every 10
check '[ -s "$work/run/final.png" ] && [ -s "$work/run/model.redraw" ] && [ -s "$work/run/metrics.csv" ]'
check '[ "$(head -1 "$work/run/metrics.csv")" = "step,loss,psnr_db,psnr_from,lr,seconds,event" ]'
check '[ "$(tail -1 "$work/run/metrics.csv" | cut -d, -f4)" = "exact" ]'
check '[ "$(tail -1 "$work/run/metrics.csv" | cut -d, -f1)" = "20" ]'
# full resolution: --full and --max-side 0 train at the file's own size (horse.png is 400x328);
# its 131,200 pixels are more than the metrics sample, so the rows are sampled and the saved one exact
expect 0 "" -- "$redraw" train "$samples/horse.png" --config "$cfg" --full --steps 10 --out "$work/full"
# ...and train says what the sampled rows cost: a count, seconds and a share of the training time
check 'grep -qE "^metrics rows: [1-9][0-9]* sampled, [0-9.]+ s, [0-9.]+% of the training time$" "$work/out"'
check '[ "$(python3 -c "import struct,sys; print(*struct.unpack(\">II\", open(sys.argv[1],\"rb\").read(24)[16:24]), sep=\"x\")" "$work/full/final.png")" = 400x328 ]'
check '[ "$(sed -n 3p "$work/full/metrics.csv" | cut -d, -f4)" = "sampled" ] && [ "$(tail -1 "$work/full/metrics.csv" | cut -d, -f4)" = "exact" ]'
expect 0 "" -- "$redraw" train "$samples/horse.png" --config "$cfg" --max-side 0 --steps 1 --out "$work/full0"
expect 2 "--max-side" -- "$redraw" train "$samples/horse.png" --max-side -1 --out "$work/x"
expect 2 "" -- "$redraw" train "$samples/horse.png" --full --max-side 64 --out "$work/x"
# spectrum.csv: the error's band powers, of the same step as the rest of the set
check '[ "$(head -1 "$work/run/spectrum.csv" | cut -d, -f1-3)" = "step,mse,f0.0078" ]'
check '[ "$(tail -1 "$work/run/spectrum.csv" | cut -d, -f1)" = "20" ]'
check '[ "$(head -1 "$work/run/spectrum.csv" | tr , "\n" | grep -c "^f")" = "32" ]'
check '[ "$(ls "$work/run" | wc -l)" = "4" ]'
expect 0 "parameters:  337" -- "$redraw" info "$work/run/model.redraw"
grep -q "steps done:  20 of 20" "$work/out" && echo "ok: info steps" || { echo "FAIL: info steps"; cat "$work/out"; failures=$((failures + 1)); }
# any seed train accepts is one info, render and --resume read back
expect 0 "" -- "$redraw" train "$samples/horse.png" --config "$cfg" --max-side 16 --steps 2 --seed 18446744073709551615 --out "$work/seed"
expect 0 '"seed": 18446744073709551615' -- "$redraw" info --json "$work/seed/model.redraw"
expect 0 "" -- "$redraw" render "$work/seed/model.redraw" -o "$work/seed/R.PNG"
check '[ -s "$work/seed/R.PNG" ]'
# 16-bit TIFF and 32-bit float EXR exports, read back by info
expect 0 "" -- "$redraw" render "$work/seed/model.redraw" --size 24x20 -o "$work/seed/R.tif"
expect 0 "TIFF, 1 channel, 16 bits" -- "$redraw" info "$work/seed/R.tif"
expect 0 "" -- "$redraw" render "$work/seed/model.redraw" --size 24x20 -o "$work/seed/R.exr"
expect 0 "OpenEXR" -- "$redraw" info "$work/seed/R.exr"
grep -q "24x20" "$work/out" && echo "ok: exr size" || { echo "FAIL: exr size"; cat "$work/out"; failures=$((failures + 1)); }
expect 0 "" -- "$redraw" train "$samples/horse.png" --resume "$work/seed/model.redraw" --steps 4 --out "$work/seed2"

# --resume continues the step count and the schedule.
expect 0 "" -- "$redraw" train "$samples/horse.png" --resume "$work/run/model.redraw" --steps 30 --out "$work/run2"
check '[ "$(tail -1 "$work/run2/metrics.csv" | cut -d, -f1)" = "30" ]'
check '[ "$(grep -c . "$work/run2/metrics.csv")" -gt "$(grep -c . "$work/run/metrics.csv")" ]'
# --resume with the image gone opens the model as the GUI does (engine's open_run): the model's own
# picture stands in as the ground truth, a note says so, and the saved model keeps its recorded source.
expect 0 "showing the model's own picture as the ground truth" -- "$redraw" train "$work/gone.png" --resume "$work/run/model.redraw" --steps 25 --out "$work/run4"
check '[ "$(tail -1 "$work/run4/metrics.csv" | cut -d, -f1)" = "25" ]'
expect 0 "horse.png" -- "$redraw" info "$work/run4/model.redraw"
# --time-limit stops early and still writes everything.
expect 0 "" -- "$redraw" train "$samples/horse.png" --config "$cfg" --max-side 40 --steps 100000000 --time-limit 1 --out "$work/run3"
check '[ -s "$work/run3/final.png" ]'

# render at any size, 8 and 16 bit; refuses a destination it cannot write before rendering.
expect 0 "" -- "$redraw" render "$work/run/model.redraw" --size 123x77 -o "$work/big.png"
check 'python3 -c "import struct,sys; d=open(sys.argv[1],\"rb\").read(26); sys.exit(0 if struct.unpack(\">II\", d[16:24])==(123,77) and d[24]==8 else 1)" "$work/big.png"'
expect 0 "" -- "$redraw" render "$work/run/model.redraw" --size 64x64 --bit-depth 16 -o "$work/big16.png"
check 'python3 -c "import sys; d=open(sys.argv[1],\"rb\").read(26); sys.exit(0 if d[24]==16 else 1)" "$work/big16.png"'
expect 1 "$work/no/such/dir/o.png" -- "$redraw" render "$work/run/model.redraw" -o "$work/no/such/dir/o.png"
check '[ ! -e "$work/no" ]'

# an unwritable output folder fails before training; a corrupt model is refused.
expect 1 "" -- "$redraw" train "$samples/horse.png" --config "$cfg" --out /proc/redraw-out
cp "$work/run/model.redraw" "$work/bad.redraw"
printf '\x00\x00\x00\x00' | dd of="$work/bad.redraw" bs=1 seek=100 conv=notrunc status=none
expect 1 "checksum" -- "$redraw" info "$work/bad.redraw"
expect 1 "checksum" -- "$redraw" train "$samples/horse.png" --resume "$work/bad.redraw" --out "$work/x"
# a truncated model is named as such, never as one "written by a newer redraw"
head -c 5000 "$work/run/model.redraw" >"$work/cut.redraw"
expect 1 "truncated or damaged" -- "$redraw" info "$work/cut.redraw"
check '! "$redraw" info "$work/cut.redraw" 2>&1 | grep -q newer'
# --threads: a count, 0 = measured; a bad value is a usage error
expect 2 "--threads" -- "$redraw" train "$samples/horse.png" --config "$cfg" --threads -1 --out "$work/x"
expect 0 "" -- "$redraw" render "$work/run/model.redraw" -o "$work/t1.png" --threads 1 --backend cpu
# info names a preset only while the model's recipe is the preset's
expect 0 "" -- "$redraw" train "$samples/horse.png" --preset siren --size 12x10 --steps 2 --backend cpu --quiet --out "$work/sirenrun"
check '"$redraw" info "$work/sirenrun/model.redraw" | grep -qx "preset:      siren"'
python3 -c "import json,sys; c=json.load(open(sys.argv[1])); c['schedule']['lr_max']=3e-4; json.dump(c,open(sys.argv[2],'w'))" \
  "$REDRAW_ASSETS/presets/siren.json" "$work/siren-edited.json"
expect 0 "" -- "$redraw" train "$samples/horse.png" --config "$work/siren-edited.json" --size 12x10 --steps 2 --backend cpu --quiet --out "$work/editrun"
check '"$redraw" info "$work/editrun/model.redraw" | grep -qx "preset:      custom (from siren)"'

# a diverging run says so and keeps the last good checkpoint.
echo '{"model": {"hidden": [16], "activation": "ReLU", "output_activation": "Identity"}, "optimizer": {"otype": "SGD"},
 "schedule": {"otype": "Constant", "lr_max": 90}, "training": {"steps": 400, "metrics_every": 1}, "data": {"color_mode": "gray"}}' >"$work/diverge.json"
expect 1 "diverged" -- "$redraw" train "$samples/horse.png" --config "$work/diverge.json" --max-side 32 --out "$work/div"
check '[ ! -e "$work/div/model.redraw" ]'

expect 0 "cpu:" -- "$redraw" info --backends

finish cli_contract
