#!/usr/bin/env bash
# Extreme aspect ratios (1x5000, 5000x1, 1x1) through every CLI path: train (metrics, spectrum),
# render (8 and 16 bits, up to the longest side allowed), compare (up to its limit, the upscale
# that aborted inside stb_image_resize), timelapse (GIF, PNG folder, MP4 when ffmpeg exists),
# info. Each works and writes a picture of the size asked, or refuses with a clear error.
# With a GUI build and xvfb-run: the GUI opens each, trains, scrubs, shows the spectrum and the
# neuron maps, and saves. Usage: aspect_ratios.sh path/to/redraw [GUI_OUT_DIR]
set -u
redraw="$1"
gui_out="${2:-}"
. "$(dirname "$0")/../lib.sh"
tiny_config "$work/tiny.json" 8 2
for size in 1x5000 5000x1 1x1; do
  mkdir -p "$work/$size" && make_png "$work/$size/img.png" "${size%x*}" "${size#*x}"
done
for size in ${REDRAW_ASPECT_CLI_SIZES-1x5000 5000x1 1x1}; do
  w="${size%x*}" h="${size#*x}"
  d="$work/$size"
  "$redraw" train "$d/img.png" --config "$work/tiny.json" --size "$size" --out "$d/run" >"$d/train.out" 2>&1
  check "[ \$? = 0 ] && [ \"\$(png_size '$d/run/final.png')\" = $size ] && [ -s '$d/run/spectrum.csv' ] && [ -s '$d/run/metrics.csv' ]  # train $size"
  m="$d/run/model.redraw"
  "$redraw" info "$m" >/dev/null 2>&1; check "[ \$? = 0 ]  # info $size"
  "$redraw" render "$m" -o "$d/r.png" >/dev/null 2>&1
  check "[ \$? = 0 ] && [ \"\$(png_size '$d/r.png')\" = $size ]  # render $size"
  "$redraw" render "$m" --bit-depth 16 -o "$d/r16.png" >/dev/null 2>&1
  check "[ \$? = 0 ] && [ \"\$(png_size '$d/r16.png')\" = $size ]  # render 16-bit $size"
  # the longest side a render allows, both ways, and over it
  for out in 65536x1 1x65536 16384x1 1x16384; do
    "$redraw" render "$m" --size "$out" -o "$d/big.png" >/dev/null 2>&1
    check "[ \$? = 0 ] && [ \"\$(png_size '$d/big.png')\" = $out ]  # render $size at $out"
  done
  "$redraw" render "$m" --size 65537x1 -o "$d/over.png" >/dev/null 2>"$d/err"
  check "[ \$? = 2 ] && grep -q 'over the limit' '$d/err'  # render $size over the limit"
  # compare: the original upscaled beside the network, each half up to 32768 wide
  for out in 16384x1 32768x1 1x16384 1x32768 1x1 "$size"; do
    /usr/bin/time -f %M -o "$d/mem" "$redraw" render "$m" --size "$out" --compare "$d/img.png" -o "$d/cmp.png" >/dev/null 2>"$d/err"
    rc=$?
    cw=$((2 * ${out%x*}))
    check "[ $rc = 0 ] && [ \"\$(png_size '$d/cmp.png')\" = ${cw}x${out#*x} ] && [ \$(cat '$d/mem') -lt 300000 ]  # compare $size at $out (peak \$(cat '$d/mem') KB)"
  done
  "$redraw" render "$m" --size 32769x1 --compare "$d/img.png" -o "$d/cmp2.png" >/dev/null 2>"$d/err"
  check "[ \$? = 2 ] && grep -q 'over the limit' '$d/err'  # compare $size over its limit"
  # timelapse: a GIF (sides up to 65535), a folder of PNGs, an MP4 when ffmpeg is there
  "$redraw" timelapse "$m" -o "$d/t.gif" >/dev/null 2>&1; check "[ \$? = 0 ] && [ -s '$d/t.gif' ]  # timelapse gif $size"
  "$redraw" timelapse "$m" --size "${h}x${w}" -o "$d/frames/" >/dev/null 2>&1
  check "[ \$? = 0 ] && [ \"\$(png_size \"\$(ls '$d'/frames/*.png | head -1)\")\" = ${h}x${w} ]  # timelapse frames $size transposed"
  if command -v ffmpeg >/dev/null; then
    "$redraw" timelapse "$m" -o "$d/t.mp4" >"$d/mp4.out" 2>&1
    rc=$?
    check "{ [ $rc = 0 ] && [ -s '$d/t.mp4' ]; } || { [ $rc = 1 ] && grep -q '^error: ' '$d/mp4.out'; }  # timelapse mp4 $size (or a clear refusal)"
  fi
done

if [ -n "$gui_out" ] && command -v xvfb-run >/dev/null; then
  rm -rf "$gui_out" && mkdir -p "$gui_out/config/redraw"
  echo '{"show_spectrum": true, "show_neuron_maps": true}' >"$gui_out/config/redraw/settings.json"
  for size in 1x5000 5000x1 1x1; do
    cat >"$work/script.txt" <<EOF2
wait has_run
key space
wait step>=8
wait paused
scrub 4
frames 10
expect scrubbed
screenshot $gui_out/$size.png
save $gui_out/$size.redraw
wait file_exists $gui_out/$size.redraw
EOF2
    XDG_CONFIG_HOME="$gui_out/config" XDG_DATA_HOME="$gui_out/data" timeout 300 \
      xvfb-run -a -s "-screen 0 1600x1000x24" "$redraw" gui "$work/$size/img.png" --preset "$work/tiny.json" \
      --backend cpu --test-script "$work/script.txt" >"$gui_out/$size.log" 2>&1
    check "[ $? = 0 ]  # the GUI trains, scrubs and saves $size with the spectrum and neuron maps open"
  done
fi
finish aspect_ratios
