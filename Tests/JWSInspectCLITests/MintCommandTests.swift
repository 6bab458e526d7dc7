import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI
import Testing

/// `jwsinspect mint ca`: an Apple-shaped test PKI of one's own, written to a folder, that
/// verifies tokens its leaf signs when (and only when) its root is given.
@Suite struct MintCommandTests {
    static let files = [
        "root.der", "root.pem", "intermediate.der", "leaf.der", "leaf-key.p8", "intermediate-key.p8", "root-key.p8",
        "README.txt",
    ]

    static func certificate(_ folder: URL, _ name: String) throws -> Certificate {
        try Certificate(derBytes: Array(Data(contentsOf: folder.appendingPathComponent(name))))
    }

    static func mode(_ url: URL) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// A transaction signed now (the in-process now) by the folder's leaf key, with its x5c.
    static func token(signedBy folder: URL) throws -> String {
        let keyBytes = Array(try Data(contentsOf: folder.appendingPathComponent("leaf-key.p8")))
        let key = try #require(try KeyFile(bytes: keyBytes, path: "leaf-key.p8").privateKey)
        let x5c = try ["leaf.der", "intermediate.der", "root.der"].map {
            "\"" + (try Data(contentsOf: folder.appendingPathComponent($0))).base64EncodedString() + "\""
        }
        let header = TestPKI.base64URL(Array("{\"alg\":\"ES256\",\"x5c\":[\(x5c.joined(separator: ","))]}".utf8))
        let signedDate = Int64(InProcess.now.timeIntervalSince1970 * 1000)
        let payload = TestPKI.base64URL(Array(TestPayloads.transaction(signedDate: signedDate).utf8))
        let signature = try key.signES256(Array("\(header).\(payload)".utf8))
        return "\(header).\(payload).\(TestPKI.base64URL(signature))"
    }

    @Test func aCAIsWrittenAppleShapedAndVerifiesItsLeafsTokensOnlyUnderItsRoot() throws {
        let folder = try CLI.temporaryDirectory().appendingPathComponent("ca/nested")
        let result = InProcess.run(["mint", "ca", "--out", folder.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("NOT Apple's") && result.stdout.contains("--root \(folder.path)/root.der"))
        for name in Self.files {
            let url = folder.appendingPathComponent(name)
            #expect(FileManager.default.fileExists(atPath: url.path), "\(name)")
            #expect(try Self.mode(url) == (name.hasSuffix("-key.p8") ? 0o600 : 0o644), "\(name)")
        }
        let (root, intermediate, leaf) = try (
            Self.certificate(folder, "root.der"), Self.certificate(folder, "intermediate.der"),
            Self.certificate(folder, "leaf.der")
        )
        for certificate in [root, intermediate, leaf] {
            #expect(certificate.subject.contains("jwsinspect test") && certificate.subject.contains("not Apple"))
        }
        #expect(intermediate.extensionValue(oid: AppleCertificates.intermediateMarkerOID) != nil)
        #expect(leaf.extensionValue(oid: AppleCertificates.leafMarkerOID) != nil)
        #expect(root.publicKey?.summary.contains("P-384") == true)
        #expect(leaf.publicKey?.summary.contains("P-256") == true)
        let readme = try String(contentsOf: folder.appendingPathComponent("README.txt"), encoding: .utf8)
        #expect(readme.contains("NOTHING HERE IS APPLE'S") && readme.contains("--root root.der"))

        let token = try Self.token(signedBy: folder)
        let trusted = InProcess.run([
            "--format", "jsonl", "--root", folder.appendingPathComponent("root.der").path, token,
        ])
        #expect(trusted.status == 0, "\(trusted.stdout)")
        #expect(InProcess.run(["-q", token]).status == 2, "Apple's roots never trust a minted CA")
    }

    @Test func aFolderThatIsNotEmptyIsRefusedUnlessForced() throws {
        let folder = try CLI.temporaryDirectory()
        let other = folder.appendingPathComponent("notes.txt")
        try CLI.write("mine", to: other)
        let refused = InProcess.run(["mint", "ca", "--out", folder.path])
        #expect(refused.status == 74)
        #expect(refused.stderr.contains("is not empty; use --force"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("root.der").path))
        let forced = InProcess.run(["mint", "ca", "--out", folder.path, "--force"])
        #expect(forced.status == 0)
        #expect(try String(contentsOf: other, encoding: .utf8) == "mine")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("leaf-key.p8").path))
        let file = InProcess.run(["mint", "ca", "--out", other.path])
        #expect(file.status == 74 && file.stderr.contains("is not a folder"))
    }

    @Test func validityAndTheRootsCurveAreChosen() throws {
        let folder = try CLI.temporaryDirectory().appendingPathComponent("short")
        #expect(
            InProcess.run(["mint", "ca", "-o", folder.path, "--valid-days", "10", "--root-curve", "p-256"]).status == 0)
        let leaf = try Self.certificate(folder, "leaf.der")
        let root = try Self.certificate(folder, "root.der")
        let days = try #require(leaf.notAfter).timeIntervalSince(try #require(leaf.notBefore)) / 86_400
        #expect(days == 11)  // from a day ago, for ten days
        #expect(try #require(leaf.notAfter) == InProcess.now.addingTimeInterval(10 * 86_400))
        #expect(root.publicKey?.summary.contains("P-256") == true)
    }

    @Test(arguments: [
        (["mint", "ca"], "--out DIR is required"),
        (["mint", "cert", "--out", "x"], "realtimeRequest, suite or timeline, not 'cert'"),
        (["mint", "ca", "--out", "x", "--valid-days", "0"], "--valid-days"),
        (["mint", "ca", "--out", "x", "--root-curve", "P-521"], "--root-curve"),
    ])
    func usageErrors(_ arguments: [String], _ message: String) {
        let result = InProcess.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
