import Foundation
import Testing

/// `jwsinspect mint suite`: every defect issue 16 lists and the edge cases a verifier must
/// accept, each file answered by jwsinspect with its manifest's `exitCode` (Apple's library
/// judges `expect` in `make difftest`, scripts/difftest/mint.py).
@Suite struct MintSuiteCommandTests {
    static let required = [
        "bad-signature", "tampered-payload", "alg-none", "alg-hs256", "alg-es384", "missing-x5c",
        "one-certificate-x5c", "untrusted-root", "intermediate-without-oid", "leaf-without-oid", "leaf-expired",
        "leaf-not-yet-valid", "der-signature", "crit-header", "wrong-bundle-id", "wrong-environment",
        "nested-bad-signature",
    ]

    @Test func theSuiteHasEveryDefectAndEachFileGetsItsExitCode() throws {
        let folder = try CLI.temporaryDirectory()
        let ca = folder.appendingPathComponent("ca").path
        let suite = folder.appendingPathComponent("suite")
        #expect(InProcess.run(["mint", "ca", "--out", ca]).status == 0)
        let options = ["--bundle-id", "com.example.suite", "--environment", "Production"]
        let made = InProcess.run(["mint", "suite", "--ca", ca, "--out", suite.path] + options)
        #expect(made.status == 0, "\(made.stderr)")
        let manifest = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: suite.appendingPathComponent("manifest.json")))
                as? [String: [[String: Any]]])
        let cases = try #require(manifest["cases"])
        let defects = Set(cases.compactMap { $0["defect"] as? String })
        #expect(Set(Self.required).isSubset(of: defects), "missing: \(Set(Self.required).subtracting(defects))")
        #expect(defects.isSuperset(of: ["high-s", "garbage-x5c2"]))
        let kinds = Set(cases.filter { $0["expect"] as? String == "valid" }.compactMap { $0["type"] as? String })
        #expect(kinds == ["transaction", "renewalInfo", "notification", "appTransaction", "realtimeRequest"])
        for item in cases {
            let file = try #require(item["file"] as? String)
            // One spelling per kind: the manifest's type is the one inspect's JSON gives the file.
            let path = suite.appendingPathComponent(file).path
            let inspected = InProcess.run(["--format", "jsonl", "--root", ca + "/root.der", path])
            let record = try #require(
                try JSONSerialization.jsonObject(with: Data(inspected.stdout.utf8)) as? [String: Any], "\(file)")
            if let type = record["type"] as? String, type != "unknown" {
                #expect(item["type"] as? String == type, "\(file): manifest and inspect name its kind alike")
            }
            let expected = try #require(item["exitCode"] as? Int)
            let valid = item["expect"] as? String == "valid"
            #expect(valid == (expected == 0), "\(file): expect and exitCode agree for jwsinspect")
            let result = InProcess.run(["-q", "--root", ca + "/root.der"] + options + [path])
            #expect(Int(result.status) == expected, "\(file)")
        }
        let statuses = Dictionary(
            cases.map { ($0["defect"] as? String ?? "", $0["exitCode"] as? Int ?? -1) }, uniquingKeysWith: { a, _ in a }
        )
        #expect(statuses["bad-signature"] == 1 && statuses["leaf-without-oid"] == 2)
        #expect(statuses["wrong-bundle-id"] == 4 && statuses["wrong-environment"] == 3)
    }

    @Test func aFolderWithoutTheCAKeysIsNamed() throws {
        let empty = try CLI.temporaryDirectory()
        let result = InProcess.run([
            "mint", "suite", "--ca", empty.path, "--out", empty.appendingPathComponent("s").path,
        ])
        #expect(result.status == 66 && result.stderr.contains("root.der"))
        #expect(InProcess.run(["mint", "suite", "--ca", empty.path]).status == 64)
    }

    /// Each file of a CA folder that is there but not what `mint ca` wrote: exit 64 and a line
    /// naming the file (the CA is read by the shipped AppStoreTestData, which throws, never traps).
    @Test(arguments: [
        ("root.der", "root.der is not a DER X.509 certificate"),
        ("intermediate.der", "intermediate.der is not a DER X.509 certificate"),
        ("leaf.der", "leaf.der is not a DER X.509 certificate"),
        ("root-key.p8", "root-key.p8 is not a PKCS#8 P-384 or P-256 private key"),
        ("intermediate-key.p8", "intermediate-key.p8 is not a PKCS#8 P-384 private key"),
        ("leaf-key.p8", "leaf-key.p8 is not a PKCS#8 P-256 private key"),
    ])
    func aCAFileThatDoesNotReadIsNamed(file: String, message: String) throws {
        let folder = try CLI.temporaryDirectory()
        let ca = folder.appendingPathComponent("ca")
        #expect(InProcess.run(["mint", "ca", "--out", ca.path]).status == 0)
        // A key where a certificate belongs and a certificate where a key does: each reads as
        // something, never as what the name says.
        let swapped = file.hasSuffix(".der") ? "leaf-key.p8" : "leaf.der"
        try Data(contentsOf: ca.appendingPathComponent(swapped)).write(to: ca.appendingPathComponent(file))
        let result = InProcess.run(["mint", "suite", "--ca", ca.path, "--out", folder.appendingPathComponent("s").path])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
