#!/usr/bin/env bash
# Builds the .deb with cpack, unpacks it into a scratch root, checks every file the package promises,
# validates the installed desktop file and AppStream metainfo, and runs the unpacked rtscope --version. Then installs
# into a scratch prefix, as a user without the package would, and checks nothing lands outside it.
set -euo pipefail
build=$1
app_id=io.github.rtscope.Rtscope
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; exit 1; }
deb=$(ls "$work"/out/rtscope_*.deb)
echo "package: $(basename "$deb")"
dpkg-deb --field "$deb" Package Version Depends
root="$work/root"
dpkg-deb -x "$deb" "$root"
dpkg-deb -e "$deb" "$work/control"

fail=0
for f in usr/bin/rtscope usr/share/man/man1/rtscope.1 etc/security/limits.d/99-rtscope.conf \
         usr/share/applications/$app_id.desktop usr/share/metainfo/$app_id.metainfo.xml \
         usr/share/icons/hicolor/scalable/apps/$app_id.svg usr/share/icons/hicolor/48x48/apps/$app_id.png \
         usr/share/icons/hicolor/256x256/apps/$app_id.png \
         usr/lib/systemd/system/rtscope-monitor.service usr/share/rtscope/grafana/rtscope.json; do
  [ -e "$root/$f" ] || { echo "missing in package: /$f"; fail=1; }
done
for f in postinst postrm; do [ -x "$work/control/$f" ] || { echo "missing maintainer script: $f"; fail=1; }; done
grep -q '^@rtscope.*rtprio' "$root/etc/security/limits.d/99-rtscope.conf" || { echo "limits.d lacks rtprio"; fail=1; }
dpkg-deb --field "$deb" Depends | grep -q qt6-qpa-plugins || { echo "Depends lacks qt6-qpa-plugins"; fail=1; }
# rtscope monitor: the unit runs the packaged binary with the real-time limits it needs and restarts on failure; the
# dashboard is JSON that queries the monitor's histogram.
unit="$root/usr/lib/systemd/system/rtscope-monitor.service"
for d in '^ExecStart=/usr/bin/rtscope monitor ' '^LimitRTPRIO=' '^LimitMEMLOCK=infinity$' '^Restart=on-failure$'; do
  grep -q "$d" "$unit" || { echo "rtscope-monitor.service lacks $d"; fail=1; }
done
if command -v python3 >/dev/null; then
  python3 -m json.tool "$root/usr/share/rtscope/grafana/rtscope.json" >/dev/null || { echo "grafana dashboard is not JSON"; fail=1; }
fi
grep -q 'rtscope_wakeup_latency_seconds_bucket' "$root/usr/share/rtscope/grafana/rtscope.json" || \
  { echo "grafana dashboard does not query the histogram"; fail=1; }
file "$root/usr/share/icons/hicolor/48x48/apps/$app_id.png" | grep -q '48 x 48' || { echo "48 px icon is not 48x48"; fail=1; }

desktop-file-validate "$root/usr/share/applications/$app_id.desktop"
appstreamcli validate --no-net --pedantic "$root/usr/share/metainfo/$app_id.metainfo.xml" || \
  appstreamcli validate --no-net "$root/usr/share/metainfo/$app_id.metainfo.xml"
grep -q "^Icon=$app_id$" "$root/usr/share/applications/$app_id.desktop" || { echo "desktop Icon is not the app id"; fail=1; }
grep -q "<id>$app_id</id>" "$root/usr/share/metainfo/$app_id.metainfo.xml" || { echo "metainfo id differs"; fail=1; }

version=$("$root/usr/bin/rtscope" --version)
echo "unpacked binary says: $version"
[ "$version" = "rtscope $(dpkg-deb --field "$deb" Version)" ] || { echo "version mismatch"; fail=1; }
if command -v groff >/dev/null; then
  groff -man -Tutf8 -ww -z "$root/usr/share/man/man1/rtscope.1" || { echo "man page has troff errors"; fail=1; }
fi
# The desktop entry hands the file a file manager opens to the app ("rtscope FILE" is --open FILE).
grep -q '^Exec=rtscope %f$' "$root/usr/share/applications/$app_id.desktop" || { echo "desktop Exec lacks %f"; fail=1; }

# Without the package: an install into a user's prefix puts everything under it, limits.d included (no root).
user="$work/user"
cmake --install "$build" --prefix "$user" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail=1; }
[ -e "$user/etc/security/limits.d/99-rtscope.conf" ] || { echo "user install lacks <prefix>/etc/security/limits.d"; fail=1; }
outside=$(grep -v "^$user/" "$build/install_manifest.txt" || true)
[ -z "$outside" ] || { echo "user install wrote outside its prefix: $outside"; fail=1; }

[ $fail -eq 0 ] && echo "package OK"
exit $fail
