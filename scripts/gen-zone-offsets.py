#!/usr/bin/env python3
"""Writes Tests/Vectors/zones/offsets.json: the UTC offset of each zone at moments from 1970 to
2100, as Python's zoneinfo reads the zone files copied beside it (from this
system's tzdata) (an implementation independent of
jwsinspect's ZoneRules, which the tests compare against it). Moments are every 97 days and 5
hours, and one second either side of each transition Python sees, so that every DST change of
those years is tested at its edge; past 2037 the zone file's POSIX rule decides."""
import datetime, json, os, zoneinfo

ZONES = ["Europe/Paris", "America/New_York", "Australia/Sydney", "Australia/Lord_Howe", "Asia/Tokyo",
         "Asia/Kolkata", "Pacific/Chatham", "America/St_Johns", "Europe/Dublin", "Africa/Casablanca",
         "America/Santiago"]

def offset(zone, t):
    return int(datetime.datetime.fromtimestamp(t, zone).utcoffset().total_seconds())

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Vectors", "zones")
out = {}
start = int(datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc).timestamp())
end = int(datetime.datetime(2100, 1, 1, tzinfo=datetime.timezone.utc).timestamp())
step = 97 * 86400 + 5 * 3600
for name in ZONES:
    with open(os.path.join(here, name), "rb") as f:
        zone = zoneinfo.ZoneInfo.from_file(f, key=name)
    points, previous, t = [], None, start
    while t < end:
        value = offset(zone, t)
        if previous is not None and value != previous[1]:
            # Find the transition between the two samples, and test one second either side.
            low, high = previous[0], t
            while high - low > 1:
                middle = (low + high) // 2
                if offset(zone, middle) == previous[1]: low = middle
                else: high = middle
            points += [[low, previous[1]], [high, offset(zone, high)]]
        points.append([t, value])
        previous = (t, value)
        t += step
    out[name] = points
tzdata = open("/usr/share/zoneinfo/tzdata.zi").readline().strip() if os.path.exists("/usr/share/zoneinfo/tzdata.zi") else "?"
path = os.path.join(here, "offsets.json")
with open(path, "w") as f:
    json.dump({"source": "Python zoneinfo over /usr/share/zoneinfo, " + tzdata, "zones": out}, f, separators=(",", ":"))
print({k: len(v) for k, v in out.items()})
