import AppStoreTestData
import Foundation
import TestPKI
import Testing

/// Issue 23, item 1, as a backend and a support desk meet it: every `mint suite` case that is
/// not valid reads no access grant in JSON (`access.grants` is never true, here or in a nested
/// token) and no "grants access" in tables; the valid ones still grant.
@Suite(.timeLimit(.minutes(10))) struct AccessFailsClosedCLITests {
    /// A `mint ca` folder and a `mint suite` made from it (in process: now is `InProcess.now`).
    static let suite: (ca: String, folder: URL, cases: [(file: String, exitCode: Int)])? = {
        guard let folder = try? CLI.temporaryDirectory() else { return nil }
        let ca = folder.appendingPathComponent("ca").path
        let out = folder.appendingPathComponent("suite")
        guard InProcess.run(["mint", "ca", "--out", ca]).status == 0,
            InProcess.run(["mint", "suite", "--ca", ca, "--out", out.path]).status == 0,
            let data = try? Data(contentsOf: out.appendingPathComponent("manifest.json")),
            let manifest = try? JSONSerialization.jsonObject(with: data) as? [String: [[String: Any]]],
            let cases = manifest["cases"]
        else { return nil }
        return (ca, out, cases.map { ($0["file"] as? String ?? "", $0["exitCode"] as? Int ?? -1) })
    }()

    /// Every `access` object of a record and of its nested records.
    static func accesses(_ record: [String: Any]) -> [[String: Any]] {
        let own = (record["access"] as? [String: Any]).map { [$0] } ?? []
        let nested = (record["nested"] as? [String: [String: Any]] ?? [:]).values.flatMap(accesses)
        return own + nested
    }

    @Test func noFailingSuiteCaseGrantsAccessAndTheValidOnesDo() throws {
        let suite = try #require(Self.suite)
        var failing = 0
        for item in suite.cases {
            let file = item.file
            let valid = item.exitCode == 0
            let path = suite.folder.appendingPathComponent(file).path
            // The expectations the manifest's exit codes were computed with (mint suite's defaults).
            let arguments = [
                "--root", suite.ca + "/root.der", "--bundle-id", "com.example.app", "--environment", "Sandbox", path,
            ]
            let json = InProcess.run(["--format", "jsonl"] + arguments)
            let record = try #require(
                try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(file)")
            let table = InProcess.run(arguments).stdout
            if valid {
                #expect(record["verified"] as? Bool == true, "\(file)")
                continue
            }
            failing += 1
            #expect(record["verified"] as? Bool == false, "\(file)")
            for access in Self.accesses(record) where record["status"] as? String != "malformed" {
                #expect(access["grants"] as? Bool != true, "\(file): \(access)")
            }
            let own = try #require(record["access"] as? [String: Any], "\(file)")
            #expect(own["grants"] is NSNull, "\(file): \(own)")
            #expect((own["detail"] as? String)?.hasPrefix("no access decision for data ") == true, "\(file)")
            #expect((record["summary"] as? String)?.contains("grants access") == false, "\(file)")
            let topLines = table.split(separator: "\n").prefix(3).joined(separator: "\n")
            #expect(!topLines.contains("grants access"), "\(file):\n\(topLines)")
        }
        #expect(failing >= 17)
        // The valid transaction grants, in JSON and in the table's summary line.
        let valid = InProcess.run([
            "--root", suite.ca + "/root.der", suite.folder.appendingPathComponent("01-valid-transaction.jws").path,
        ])
        #expect(valid.status == 0 && valid.stdout.contains("grants access until"), "\(valid.stdout)")
    }

    /// `--no-verify` never reads as a grant: the detail says what it would mean if authentic.
    @Test func noVerifySaysWhatItWouldGrantIfAuthentic() throws {
        let suite = try #require(Self.suite)
        let path = suite.folder.appendingPathComponent("01-valid-transaction.jws").path
        let result = InProcess.run(["--no-verify", "--format", "jsonl", path])
        let record = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let access = try #require(record["access"] as? [String: Any])
        #expect(access["grants"] is NSNull)
        let detail = try #require(access["detail"] as? String)
        #expect(
            detail.hasPrefix(
                "no access decision for data not verified (nothing was checked); if authentic, it would grant access until "
            ))
    }

    /// A receipt whose signature fails: no grant in JSON, the summary or the in-app table.
    @Test func aForgedReceiptGrantsNothing() throws {
        var builder = ReceiptBuilder()
        builder.inApp = [
            InAppEntry(
                productID: "com.example.forever", transactionID: "1",
                purchaseDate: Date(timeIntervalSince1970: 1_700_000_000))
        ]
        var receipt = ReceiptCLI.chain.sign(builder.der())
        let genuine = try ReceiptCLI.file(receipt, named: "genuine.der")
        let product = Array("com.example.forever".utf8)
        let at = try #require(receipt.indices.first { Array(receipt[$0..<($0 + product.count)]) == product })
        receipt[at + product.count - 1] = UInt8(ascii: "x")
        let forged = try ReceiptCLI.file(receipt, named: "forged.der")
        let control = try ReceiptCLI.object(
            ReceiptCLI.run(["--format", "jsonl", "--root", ReceiptCLI.rootFile, genuine]))
        #expect((control["access"] as? [String: Any])?["grants"] as? Bool == true)
        let result = ReceiptCLI.run(["--format", "jsonl", "--root", ReceiptCLI.rootFile, forged])
        #expect(result.status == 1)
        let record = try ReceiptCLI.object(result)
        let access = try #require(record["access"] as? [String: Any])
        #expect(access["grants"] is NSNull)
        #expect(
            (record["summary"] as? String)?.hasSuffix(
                "no access decision for data not proven authentic (invalid-signature).") == true)
        let table = ReceiptCLI.run(["--root", ReceiptCLI.rootFile, forged]).stdout
        #expect(
            table.contains("not decided") && !table.contains("active\n") && !table.contains("grants access"), "\(table)"
        )
        let genuineTable = ReceiptCLI.run(["--root", ReceiptCLI.rootFile, genuine]).stdout
        #expect(genuineTable.contains("  active\n"), "\(genuineTable)")
    }
}
