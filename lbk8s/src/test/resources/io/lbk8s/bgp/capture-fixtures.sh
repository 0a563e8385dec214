#!/usr/bin/env bash
# Captures real BGP messages from GoBGP, BIRD and FRR peering with one another in a network namespace made here, and
# writes them as hex lines (sender, version, message) to real-messages.txt next to this script. Run as root under
# `flock /work/netns.lock`. GoBGP is AS 65001 at 10.0.0.1, BIRD AS 65002 at 10.0.0.2 / fd00::2, FRR AS 65003 at
# 10.0.0.3 / fd00::3; all three addresses sit on the namespace's loopback.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ns=lbk8s-bgpcap-$$
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 0.5
  ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null || true
  ip netns del "$ns" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
in_ns() { ip netns exec "$ns" "$@"; }

ip netns add "$ns"
in_ns ip link set lo up
in_ns sysctl -qw net.ipv6.conf.lo.disable_ipv6=0 || true
for a in 10.0.0.1/32 10.0.0.2/32 10.0.0.3/32; do in_ns ip addr add "$a" dev lo; done
for a in fd00::1/128 fd00::2/128 fd00::3/128; do in_ns ip addr add "$a" dev lo nodad; done

in_ns tcpdump -i lo -U -s 0 -w "$tmp/bgp.pcap" 'tcp port 179' 2>"$tmp/tcpdump.log" & pids+=($!)
sleep 1

cat >"$tmp/gobgp.toml" <<CONF
[global.config]
  as = 65001
  router-id = "10.0.0.1"
  local-address-list = ["10.0.0.1"]
[[neighbors]]
  [neighbors.config]
    neighbor-address = "10.0.0.2"
    peer-as = 65002
  [neighbors.transport.config]
    local-address = "10.0.0.1"
  [neighbors.graceful-restart.config]
    enabled = true
    restart-time = 90
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv4-unicast"
    [neighbors.afi-safis.mp-graceful-restart.config]
      enabled = true
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv6-unicast"
[[neighbors]]
  [neighbors.config]
    neighbor-address = "10.0.0.3"
    peer-as = 65003
  [neighbors.transport.config]
    local-address = "10.0.0.1"
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv4-unicast"
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv6-unicast"
CONF

cat >"$tmp/bird.conf" <<CONF
router id 10.0.0.2;
protocol device {}
protocol static s4 { ipv4; route 198.51.100.2/32 blackhole; route 198.51.100.128/25 blackhole; }
protocol static s6 { ipv6; route 2001:db8:2::/64 blackhole; }
filter add_communities { bgp_community.add((65002,200)); bgp_large_community.add((65002,1,2)); bgp_med = 50; accept; }
template bgp peer {
  local as 65002;
  multihop;
  strict bind yes;
  ipv4 { import all; export filter add_communities; };
  ipv6 { import all; export filter add_communities; next hop address fd00::2; };
}
protocol bgp gobgp from peer { local 10.0.0.2; neighbor 10.0.0.1 as 65001; }
protocol bgp frr6 from peer {
  local fd00::2; neighbor fd00::3 as 65003;
  ipv4 { import all; export filter add_communities; next hop address 10.0.0.2; extended next hop off; };
  ipv6 { import all; export filter add_communities; };
}
protocol bgp wrongas from peer { local 10.0.0.2; neighbor 10.0.0.3 as 65099; }
CONF

cat >"$tmp/frr.conf" <<CONF
hostname frr
route-map tag permit 10
 set community 65003:300
 set large-community 65003:3:4
 set local-preference 150
!
router bgp 65003
 bgp router-id 10.0.0.3
 no bgp ebgp-requires-policy
 no bgp network import-check
 bgp graceful-restart
 neighbor 10.0.0.1 remote-as 65001
 neighbor 10.0.0.2 remote-as 65002
 neighbor fd00::2 remote-as 65002
 address-family ipv4 unicast
  network 198.51.100.3/32 route-map tag
  neighbor 10.0.0.1 activate
  neighbor fd00::2 activate
 exit-address-family
 address-family ipv6 unicast
  network 2001:db8:3::/48 route-map tag
  neighbor 10.0.0.1 activate
  neighbor fd00::2 activate
 exit-address-family
!
CONF

in_ns gobgpd -f "$tmp/gobgp.toml" --api-hosts 127.0.0.1:50051 --pprof-disable >"$tmp/gobgpd.log" 2>&1 & pids+=($!)
in_ns bird -f -c "$tmp/bird.conf" -s "$tmp/bird.ctl" -P "$tmp/bird.pid" >"$tmp/bird.log" 2>&1 & pids+=($!)
mkdir -p "$tmp/frr"
in_ns /usr/lib/frr/bgpd -Z -S -u root -g root -l 10.0.0.3 -l fd00::3 -f "$tmp/frr.conf" -i "$tmp/frr/bgpd.pid" \
  --vty_socket "$tmp/frr" -A 127.0.0.1 >"$tmp/frr.log" 2>&1 & pids+=($!)
for _ in $(seq 1 40); do in_ns gobgp global >/dev/null 2>&1 && break; sleep 0.5; done
sleep 2
in_ns gobgp global rib add -a ipv4 198.51.100.1/32 community 65001:100 large-community 65001:1:2 med 10 || echo "gobgp add failed"
in_ns gobgp global rib add -a ipv6 2001:db8:1::1/128 || echo "gobgp add6 failed"
sleep 8
vty() { in_ns vtysh --vty_socket "$tmp/frr" -c "$@"; }
vty 'clear bgp 10.0.0.1 soft in' || true
in_ns birdc -s "$tmp/bird.ctl" reload in gobgp || true
sleep 2
in_ns gobgp global rib del -a ipv4 198.51.100.1/32 || echo "gobgp del failed"
sleep 2
vty 'configure terminal' -c 'router bgp 65003' -c 'neighbor 10.0.0.1 shutdown message "maintenance window 42"' || true
in_ns birdc -s "$tmp/bird.ctl" disable frr6 '"bird going down"' || true
sleep 2
echo "== states"; in_ns gobgp neighbor || true; in_ns birdc -s "$tmp/bird.ctl" show protocols || true
kill "${pids[0]}"; sleep 1
python3 "$here/pcap-to-hex.py" "$tmp/bgp.pcap" \
  "10.0.0.1=GoBGP $(gobgpd --version | awk '{print $3}')" \
  "10.0.0.2=BIRD $(bird --version 2>&1 | awk '{print $3}')" \
  "10.0.0.3=FRR $(/usr/lib/frr/bgpd -v | awk '/version/{print $3; exit}')" >"$here/real-messages.txt"
for f in gobgpd bird frr; do echo "== $f"; tail -5 "$tmp/$f.log"; done
