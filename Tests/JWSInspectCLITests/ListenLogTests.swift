import Foundation
import JWSInspectCore
import TestPKI
import TestSupport
import Testing

@testable import JWSInspectCLI

/// Notifications for listen's tests: signed by one Apple-shaped test chain, each with its own
/// notificationUUID, as `{"signedPayload": …}` bodies.
enum ListenFixture {
    static let chain = AppleShapedChain()
    /// A folder holding the chain's root as root.der.
    static let folder: URL = {
        // swiftlint:disable:next force_try
        let folder = try! CLI.temporaryDirectory()
        // swiftlint:disable:next force_try
        try! Data(chain.root.der).write(to: folder.appendingPathComponent("root.der"))
        return folder
    }()
    static var rootPath: String { folder.appendingPathComponent("root.der").path }
    static var root: [String] { ["--root", rootPath] }

    /// The notificationUUID of notification `number`.
    static func uuid(_ number: Int) -> String {
        "00000000-0000-4000-8000-"
            + String(String(number).reversed()).padding(toLength: 12, withPad: "0", startingAt: 0)
            .reversed()
    }

    /// Notification `number`'s JWS (a TEST notification for the fixtures' app, in Sandbox).
    static func token(_ number: Int, bundleId: String = TestPayloads.bundleId) -> String {
        chain.sign(
            payloadJSON: """
                {"notificationType":"TEST","notificationUUID":"\(uuid(number))",\
                "data":{"appAppleId":\(TestPayloads.appAppleId),"bundleId":"\(bundleId)","environment":"Sandbox"},\
                "version":"2.0","signedDate":\(TestPayloads.signedDate)}
                """)
    }

    /// Notification `number`'s body, as Apple posts it.
    static func body(_ number: Int, bundleId: String = TestPayloads.bundleId) -> String {
        "{\"signedPayload\":\"\(token(number, bundleId: bundleId))\"}"
    }

    /// The log's lines, each parsed.
    static func records(_ log: URL) throws -> [[String: Any]] {
        let text = try String(contentsOf: log, encoding: .utf8)
        #expect(text.isEmpty || text.hasSuffix("\n"), "the log ends with a whole line")
        return try text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0.prefix(200))")
        }
    }
}

/// `NotificationLog`: exactly once under concurrent appends and across reopening, a torn last
/// line set aside, a damaged log refused, one listener per log, nothing followed.
@Suite(.timeLimit(.minutes(10))) struct ListenLogTests {
    func line(_ uuid: String) -> [UInt8] {
        Array(#"{"schemaVersion":1,"record":"stored","notificationUUID":"\#(uuid)","body":"{}"}"#.utf8)
    }

    @Test func concurrentAppendsStoreEachKeyOnceAndShareSyncs() throws {
        let path = try CLI.temporaryDirectory().appendingPathComponent("log.jsonl")
        let (log, recovery) = try NotificationLog.openLog(path.path).get()
        #expect(recovery.stored == 0)
        let outcomes = JWSInspectCore.Locked([String: Int]())
        DispatchQueue.concurrentPerform(iterations: 32) { worker in
            for index in 0..<200 {
                let uuid = ListenFixture.uuid((worker * 7 + index) % 500)
                let outcome: String
                switch log.append(line(uuid), key: .init(notificationUUID: uuid)) {
                case .stored: outcome = "stored"
                case .repeated: outcome = "repeated"
                case .failed(let reason): outcome = "failed: \(reason)"
                }
                outcomes.withLock { $0[outcome, default: 0] += 1 }
            }
        }
        let counts = outcomes.withLock { $0 }
        let distinct = Set((0..<32).flatMap { worker in (0..<200).map { (worker * 7 + $0) % 500 } }).count
        #expect(counts["stored"] == distinct, "\(counts)")
        #expect(counts["stored", default: 0] + counts["repeated", default: 0] == 6400, "\(counts)")
        let records = try ListenFixture.records(path)
        let uuids = records.compactMap { $0["notificationUUID"] as? String }
        #expect(uuids.count == counts["stored"] && Set(uuids).count == uuids.count, "each key once in the log")
        #expect(log.count == uuids.count)
    }

    @Test func reopeningRebuildsTheKeysInAnyCase() throws {
        let path = try CLI.temporaryDirectory().appendingPathComponent("log.jsonl").path
        do {
            let (log, _) = try NotificationLog.openLog(path).get()
            for number in 0..<10 {
                _ = log.append(
                    line(ListenFixture.uuid(number)), key: .init(notificationUUID: ListenFixture.uuid(number)))
            }
        }
        let (log, recovery) = try NotificationLog.openLog(path).get()
        #expect(recovery.stored == 10 && recovery.setAside == 0)
        let upper = ListenFixture.uuid(3).uppercased()
        #expect(log.append(line(upper), key: .init(notificationUUID: upper)) == .repeated)
        #expect(recovery.unforwarded.count == 10, "nothing was forwarded")
    }

    @Test func aTornLastLineIsSetAsideAndTheLogCutBack() throws {
        let folder = try CLI.temporaryDirectory()
        let path = folder.appendingPathComponent("log.jsonl")
        let whole = String(decoding: line(ListenFixture.uuid(1)), as: UTF8.self) + "\n"
        let torn = String(decoding: line(ListenFixture.uuid(2)).prefix(30), as: UTF8.self)
        try Data((whole + torn).utf8).write(to: path)
        let (log, recovery) = try NotificationLog.openLog(path.path).get()
        #expect(recovery.stored == 1 && recovery.setAside == torn.utf8.count)
        #expect(recovery.setAsidePath == path.path + ".torn")
        #expect(try String(contentsOf: path, encoding: .utf8) == whole)
        #expect(try String(contentsOfFile: path.path + ".torn", encoding: .utf8) == torn + "\n")
        // The notification cut short was never stored: it can be now.
        #expect(
            log.append(line(ListenFixture.uuid(2)), key: .init(notificationUUID: ListenFixture.uuid(2))) != .repeated)
        #expect(try ListenFixture.records(path).count == 2)
    }

    @Test func aDamagedLineBeforeRecordsIsRefusedNotSkipped() throws {
        let path = try CLI.temporaryDirectory().appendingPathComponent("log.jsonl")
        let good = String(decoding: line(ListenFixture.uuid(1)), as: UTF8.self)
        try Data(
            (good + "\n{\"not\":\"a record\"}\n" + good.replacingOccurrences(of: "0001", with: "0002") + "\n").utf8
        )
        .write(to: path)
        guard case .failure(let failure) = NotificationLog.openLog(path.path) else {
            Issue.record("a damaged log was opened")
            return
        }
        #expect(failure.message.contains("line 2 is not a record listen writes"), "\(failure.message)")
        #expect(!failure.isSystem)
    }

    @Test func oneListenerPerLogAndNothingButARegularFile() throws {
        let folder = try CLI.temporaryDirectory()
        let path = folder.appendingPathComponent("log.jsonl").path
        let (log, _) = try NotificationLog.openLog(path).get()
        guard case .failure(let busy) = NotificationLog.openLog(path) else {
            Issue.record("a second opener got the log")
            return
        }
        #expect(busy.message.contains("another jwsinspect listen"), "\(busy.message)")
        _ = log
        let link = folder.appendingPathComponent("link.jsonl").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        guard case .failure(let linked) = NotificationLog.openLog(link) else {
            Issue.record("a symbolic link was followed")
            return
        }
        #expect(linked.message.contains("symbolic link"), "\(linked.message)")
        guard case .failure(let folderFailure) = NotificationLog.openLog(folder.path) else {
            Issue.record("a folder was opened as a log")
            return
        }
        #expect(folderFailure.message.contains("not a regular file"), "\(folderFailure.message)")
    }
}

/// `listen --import`: notifications appended through the same exactly-once rule, refusals not
/// stored, a log timeline folds.
@Suite(.timeLimit(.minutes(10))) struct ListenImportTests {
    @Test func importStoresEachNotificationOnceAndTimelineFoldsTheLog() throws {
        let folder = try CLI.temporaryDirectory()
        let bodies = folder.appendingPathComponent("bodies.jsonl")
        let made = (0..<5).map { ListenFixture.body($0) }
        try Data((made + [ListenFixture.body(2)]).joined(separator: "\n").utf8).write(to: bodies)
        let log = folder.appendingPathComponent("log.jsonl").path
        let first = InProcess.run(["listen", "--import", bodies.path, "--log", log] + ListenFixture.root)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("6 received: 5 stored, 1 repeated"), "\(first.stderr)")
        let again = InProcess.run(
            ["listen", "--import", bodies.path, "--log", log, "--format", "jsonl"] + ListenFixture.root)
        #expect(again.status == 0, "\(again.stderr)")
        let deliveries = try again.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(deliveries.count == 6 && deliveries.allSatisfy { $0["outcome"] as? String == "repeated" })
        #expect(
            again.stderr.contains(#""record":"listenSummary","received":6,"stored":0,"repeated":6"#), "\(again.stderr)")
        let records = try ListenFixture.records(URL(fileURLWithPath: log))
        #expect(records.map { $0["notificationUUID"] as? String } == (0..<5).map { ListenFixture.uuid($0) })
        // The body is kept as it came: Apple's body, byte for byte.
        #expect(records.first?["body"] as? String == made[0])
        let folded = InProcess.run(["timeline", "--format", "jsonl", log] + ListenFixture.root)
        #expect(folded.status == 0, "\(folded.stderr)")
        #expect(
            folded.stdout.contains(#""itemsRead":5,"folded":0,"repeatedDeliveries":0,"skipped":0"#),
            "\(folded.stdout.suffix(400))")
    }

    @Test func aForgeryOrAnotherKindIsNeverStored() throws {
        let folder = try CLI.temporaryDirectory()
        var forged = ListenFixture.token(1)
        forged.replaceSubrange(forged.index(forged.endIndex, offsetBy: -6)..., with: "AAAAAA")
        let transaction = ListenFixture.chain.sign(payloadJSON: TestPayloads.transaction())
        let log = folder.appendingPathComponent("log.jsonl").path
        for (token, status) in [(forged, 1), (transaction, 5)] {
            let file = folder.appendingPathComponent("\(status).json")
            try Data("{\"signedPayload\":\"\(token)\"}".utf8).write(to: file)
            let result = InProcess.run(["listen", "--import", file.path, "--log", log] + ListenFixture.root)
            #expect(result.status == Int32(status), "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("rejected"), "\(result.stdout)")
        }
        #expect(try ListenFixture.records(URL(fileURLWithPath: log)).isEmpty)
    }

    @Test func aFailingExpectationIsStoredAndFlagged() throws {
        let folder = try CLI.temporaryDirectory()
        let file = folder.appendingPathComponent("other.json")
        try Data(ListenFixture.body(7, bundleId: "com.other.app").utf8).write(to: file)
        let log = folder.appendingPathComponent("log.jsonl")
        let result = InProcess.run(
            ["listen", "--import", file.path, "--log", log.path, "--bundle-id", TestPayloads.bundleId]
                + ListenFixture.root)
        #expect(result.status == 0, "\(result.stderr)")
        let records = try ListenFixture.records(log)
        #expect(records.count == 1 && records[0]["status"] as? String == "wrong-app", "\(records)")
        #expect((records[0]["reason"] as? String)?.contains("stored and flagged") == true)
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit")
                && ProcessInfo.processInfo.environment["TSAN_OPTIONS"] == nil,
            "prlimit (util-linux) is missing, or this is ThreadSanitizer's build, which a file size limit kills"))
    func aLogThatCannotGrowIsAFailureAndKeepsOnlyWholeLines() throws {
        let folder = try CLI.temporaryDirectory()
        let bodies = folder.appendingPathComponent("bodies.jsonl")
        try Data((0..<20).map { ListenFixture.body($0) }.joined(separator: "\n").utf8).write(to: bodies)
        let log = folder.appendingPathComponent("log.jsonl")
        // A file size limit of 12 KB: a few records fit, then every write fails (EFBIG).
        let result = try CLI.runProgram(
            "/usr/bin/prlimit",
            ["--fsize=12000", CLI.executable.path, "listen", "--import", bodies.path, "--log", log.path]
                + ListenFixture.root)
        #expect(result.status == 74, "\(result.stderr.suffix(600))")
        #expect(result.stdout.contains("HTTP") == false)
        #expect(
            result.stdout.contains("retry") && result.stdout.contains("File too large"), "\(result.stdout.suffix(600))")
        let records = try ListenFixture.records(log)
        #expect(!records.isEmpty && records.count < 20, "\(records.count)")
        // What was not stored is stored by the next run, once.
        let again = InProcess.run(["listen", "--import", bodies.path, "--log", log.path] + ListenFixture.root)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try ListenFixture.records(log).count == 20)
    }
}
