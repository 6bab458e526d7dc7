import Foundation
import JWSInspectCore
import Testing

@testable import JWSInspectCLI

/// `--time-zone`: tables show every date in the reader's zone, JSON stays UTC. The zone rules
/// are read from TZif files and POSIX TZ rules by `ZoneRules`, checked here against Python's
/// `zoneinfo` on bundled copies of tzdata's files (Tests/Vectors/zones).
@Suite(.timeLimit(.minutes(10))) struct TimeZoneTests {
    static let zones = CLI.packageRoot.appendingPathComponent("Tests/Vectors/zones")

    static func zoneFile(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: zones.appendingPathComponent(name)))
    }

    static let samples = CLI.packageRoot.appendingPathComponent("Samples")

    static func sample(_ name: String) -> String { samples.appendingPathComponent(name).path }

    /// Whether `text` holds a moment the core writes in UTC, as `ISO8601.string` writes it.
    static func hasUTCStamp(_ text: String) -> Bool {
        text.contains(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/)
    }

    @Test func zoneRulesAgreeWithPythonsZoneinfo() throws {
        let data = try Data(contentsOf: Self.zones.appendingPathComponent("offsets.json"))
        let vectors = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let zones = try #require(vectors["zones"] as? [String: [[Int]]])
        #expect(zones.count == 11)
        for (name, points) in zones {
            let rules = try ZoneRules(tzif: try Self.zoneFile(name))
            var wrong: [[Int]] = []
            for point in points where rules.offset(at: Int64(point[0])) != point[1] { wrong.append(point) }
            #expect(wrong.isEmpty, "\(name): \(wrong.count) of \(points.count) differ, first \(wrong.prefix(3))")
            #expect(points.count > 400, "\(name)")
        }
    }

    @Test func posixRulesReadAsTheCLibraryReadsThem() throws {
        let newYork = try #require(ZoneRules(posix: "EST5EDT,M3.2.0,M11.1.0"))
        // 2026-03-08 02:00 EST is 07:00 UTC: one second before, EST; at it, EDT.
        #expect(newYork.offset(at: 1_772_953_199) == -18_000)
        #expect(newYork.offset(at: 1_772_953_200) == -14_400)
        // 2026-11-01 02:00 EDT is 06:00 UTC.
        #expect(newYork.offset(at: 1_793_512_799) == -14_400)
        #expect(newYork.offset(at: 1_793_512_800) == -18_000)
        // Southern hemisphere: daylight saving across the new year.
        let sydney = try #require(ZoneRules(posix: "AEST-10AEDT,M10.1.0,M4.1.0/3"))
        #expect(sydney.offset(at: 1_767_225_600) == 39_600)  // 2026-01-01: summer
        #expect(sydney.offset(at: 1_783_000_000) == 36_000)  // 2026-07-02: winter
        let tehran = try #require(ZoneRules(posix: "<+0330>-3:30"))
        #expect(tehran.offset(at: 0) == 12_600)
        let allYear = try #require(ZoneRules(posix: "EST5EDT,0/0,J365/25"))
        #expect(allYear.offset(at: 1_783_000_000) == -14_400)
        // What a rule leaves to the implementation, or is no rule, is refused.
        for text in [
            "EST5EDT", "X1", "CET-1CEST,M13.1.0,M10.5.0", "CET-1CEST,M3.5.0", "CET-25", "CET-1CEST,M3.5.0,M10.5.0x",
        ] {
            #expect(ZoneRules(posix: text) == nil, "\(text)")
        }
    }

    /// A file that is not a zone file, or one cut or forged, is refused with a reason; never
    /// a trap, never a read past its end.
    @Test func hostileZoneFilesAreRefused() throws {
        let paris = try Self.zoneFile("Europe/Paris")
        var cases: [(String, [UInt8])] = [
            ("empty", []), ("not TZif", Array("not a zone file at all, but long enough to hold a header...".utf8)),
            ("cut in the header", Array(paris.prefix(30))), ("cut in the data", Array(paris.prefix(600))),
            ("no footer", Array(paris.dropLast(40))),
        ]
        func patched(_ offset: Int, _ bytes: [UInt8]) -> [UInt8] {
            var copy = paris
            copy.replaceSubrange(offset..<offset + bytes.count, with: bytes)
            return copy
        }
        cases.append(("a huge count", patched(32, [0x7F, 0xFF, 0xFF, 0xFF])))
        cases.append(("leap seconds", patched(28, [0, 0, 0, 1])))
        cases.append(("no types", patched(36, [0, 0, 0, 0])))
        for (name, bytes) in cases {
            #expect(throws: ZoneError.self, "\(name)") { try ZoneRules(tzif: bytes) }
        }
        // The second header's counts, and a transition's type past the types there are.
        let second = try #require(Self.secondHeader(paris))
        let counts = (0..<6).map { index in
            paris[second + 20 + index * 4..<second + 24 + index * 4].reduce(0) { $0 << 8 | Int($1) }
        }
        let indices = second + 44 + counts[3] * 8
        #expect(throws: ZoneError.self) { try ZoneRules(tzif: patched(indices, [UInt8(counts[4])])) }
        // Transitions out of order.
        let times = second + 44
        #expect(throws: ZoneError.self) { try ZoneRules(tzif: patched(times + 8, Array(paris[times..<times + 8]))) }
        _ = try ZoneRules(tzif: paris)
    }

    /// Where the version 2 header starts, after the version 1 data.
    static func secondHeader(_ file: [UInt8]) -> Int? {
        func count(_ index: Int) -> Int { file[20 + index * 4..<24 + index * 4].reduce(0) { $0 << 8 | Int($1) } }
        let size = count(3) * 5 + count(4) * 6 + count(5) + count(2) * 8 + count(1) + count(0)
        return 44 + size < file.count ? 44 + size : nil
    }

    @Test func theOptionNamesAZone() throws {
        let files = { (path: String) -> Result<[UInt8], ZoneError>? in
            guard path.hasPrefix(DisplayZone.zoneDirectory + "/") else { return nil }
            let name = String(path.dropFirst(DisplayZone.zoneDirectory.count + 1))
            return (try? Self.zoneFile(name)).map { .success($0) }
        }
        func named(_ text: String, tz: String? = nil) -> Result<DisplayZone, ZoneError> {
            DisplayZone.named(text, environment: { $0 == "TZ" ? tz : nil }, read: files)
        }
        for utc in ["UTC", "utc", "Z"] { #expect(try named(utc).get().isUTC, "\(utc)") }
        #expect(try !named("Europe/Paris").get().isUTC)
        #expect(
            try named("+05:30").get().style.stamp(Date(timeIntervalSince1970: 0)) == "1970-01-01T05:30:00.000+05:30")
        #expect(try named("-0800").get().style.day(Date(timeIntervalSince1970: 0)) == "1969-12-31")
        // local: TZ as the C library reads it, else /etc/localtime (here absent: UTC).
        #expect(try named("local").get().isUTC)
        #expect(
            try named("local", tz: ":Asia/Tokyo").get().style.stamp(Date(timeIntervalSince1970: 0)).hasSuffix("+09:00"))
        #expect(
            try named("local", tz: "EST5EDT,M3.2.0,M11.1.0").get().style.stamp(Date(timeIntervalSince1970: 0))
                .hasSuffix("-05:00"))
        #expect(try named("local", tz: "").get().isUTC)
        for refused in [
            "../etc/passwd", "Europe//Paris", "/etc/localtime", "", "+19:00", "Mars/Olympus_Mons", "Europe",
        ] {
            #expect(throws: ZoneError.self, "\(refused)") { try named(refused).get() }
        }
        #expect(throws: ZoneError.self) { try named("local", tz: "garbage").get() }
    }

    @Test func rewritingWritesTheCoresUTCMomentsInTheZone() throws {
        let zone = try DisplayZone.named("+02:00", environment: { _ in nil }).get()
        #expect(
            zone.rewrite("expired 2025-10-02T07:09:07.000Z; signed 2025-10-02T23:30:00.250Z.")
                == "expired 2025-10-02T09:09:07.000+02:00; signed 2025-10-03T01:30:00.250+02:00.")
        // Only a whole stamp, and only a real moment.
        for untouched in [
            "x2025-10-02T07:09:07.000Z", "2025-10-02T07:09:07.000Zulu", "2025-13-02T07:09:07.000Z",
            "2025-02-30T07:09:07.000Z", "2025-10-02T07:09:07Z", "T", "",
        ] {
            #expect(zone.rewrite(untouched) == untouched, "\(untouched)")
        }
        #expect(DisplayZone.utc.rewrite("2025-10-02T07:09:07.000Z") == "2025-10-02T07:09:07.000Z")
    }

    /// The whole table in the zone: the headline's day, the summary, checks, chain and payload;
    /// JSON byte for byte as without the option.
    @Test func tablesShowTheZoneAndJSONStaysUTC() throws {
        let notification = Self.sample("notification-subscribed-sandbox-2025.jws")
        // Access judged two minutes in: the subscription runs from 07:06:07 until 2025-10-02T07:09:07Z.
        let access = ["--access-at", "2025-10-02T07:08:00Z"]
        let utc = InProcess.run(["--brief", notification] + access)
        #expect(utc.stdout.contains("grants access until 2025-10-02  "), "\(utc.stdout)")
        let honolulu = InProcess.run(["--time-zone", "-10:00", notification] + access)
        #expect(honolulu.status == 0, "\(honolulu.stderr)")
        #expect(honolulu.stdout.hasPrefix("VALID — ") && honolulu.stdout.contains("grants access until 2025-10-01  "))
        #expect(honolulu.stdout.contains("grants access until 2025-10-01T21:09:07.000-10:00"), "\(honolulu.stdout)")
        #expect(honolulu.stdout.contains("signedDate                  1759388776941  2025-10-01T21:06:16.941-10:00"))
        #expect(honolulu.stdout.contains("validity     2025-09-19T09:44:51.000-10:00 .. "))
        #expect(honolulu.stdout.contains("valid at signedDate 2025-10-01T21:06:16.941-10:00"))
        #expect(!Self.hasUTCStamp(honolulu.stdout), "\(honolulu.stdout)")
        let brief = InProcess.run(["--brief", "--time-zone", "-10:00", notification] + access)
        #expect(brief.stdout.split(separator: "\n").count == 2 && brief.stdout.contains("sent 2025-10-01"))

        for format in ["json", "jsonl"] {
            let plain = InProcess.run(["--format", format, notification])
            let zoned = InProcess.run(["--format", format, "--time-zone", "Europe/Paris", notification])
            #expect(zoned.stdout == plain.stdout && zoned.status == plain.status)
            #expect(
                zoned.stderr
                    == "jwsinspect: warning: --time-zone Europe/Paris is for tables; --format \(format) writes UTC\n")
        }
        let refused = InProcess.run(["--time-zone", "Mars/Olympus_Mons", notification])
        #expect(refused.status == 64 && refused.stdout.isEmpty)
        #expect(refused.stderr.hasPrefix("jwsinspect: --time-zone: unknown time zone 'Mars/Olympus_Mons'"))
    }

    @Test func aReceiptsDatesAreInTheZone() throws {
        let receipt = Self.sample("receipt-production-2024.der")
        let zoned = InProcess.run(["--time-zone", "+09:00", receipt])
        #expect(zoned.status == 0, "\(zoned.stderr)")
        #expect(!Self.hasUTCStamp(zoned.stdout), "\(zoned.stdout)")
        let inApp = try #require(zoned.stdout.split(separator: "\n").first { $0.hasPrefix("  org.getpure") })
        #expect(inApp.contains("+09:00"), "\(inApp)")
    }

    @Test func fetchShowsTheZoneToo() throws {
        let harness = try FetchHarness()
        let result = harness.run(["transaction", MockAppStoreServer.Seed.subscriptionRenewal2, "--time-zone", "+05:30"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("API RESPONSE  "))
        #expect(result.stdout.contains("+05:30") && !Self.hasUTCStamp(result.stdout))
        let refused = harness.run([
            "transaction", MockAppStoreServer.Seed.subscriptionRenewal2, "--time-zone", "nowhere",
        ])
        #expect(refused.status == 64 && harness.production.requests.count == 1)
    }
}
