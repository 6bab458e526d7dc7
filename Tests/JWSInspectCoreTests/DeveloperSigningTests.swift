import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI
import Testing

/// Developer keys (a `.p8` private key or a public key PEM), ES256 and DER signatures made with
/// them, and the tokens and legacy offer signatures `sign` makes.
@Suite struct DeveloperSigningTests {
    static func keyFile(_ key: TestKey = .p256(), name: String = "AuthKey_ABCDE12345.p8") throws -> KeyFile {
        try KeyFile(bytes: Array(key.privateKeyPEM.utf8), path: name)
    }

    // MARK: Signing

    @Test func es256RoundTrip() throws {
        let testKey = TestKey.p256()
        let file = try Self.keyFile(testKey)
        let key = try #require(file.privateKey)
        let message = Array("header.payload".utf8)
        let signature = try key.signES256(message)
        #expect(signature.count == 64)
        #expect(key.publicKey.verifyES256(signature: signature, message: message) == nil)
        // The public key is the test key's: its own encoding verifies the signature too.
        let independent = try #require(PublicKey(subjectPublicKeyInfo: testKey.publicKeyDER))
        #expect(independent.verifyES256(signature: signature, message: message) == nil)
        var changedMessage = message
        changedMessage[3] ^= 1
        #expect(key.publicKey.verifyES256(signature: signature, message: changedMessage) == .mismatch)
        var changedSignature = signature
        changedSignature[40] ^= 0x80
        #expect(key.publicKey.verifyES256(signature: changedSignature, message: message) == .mismatch)
        // Another key does not verify it.
        let other = try #require(try Self.keyFile().privateKey)
        #expect(other.publicKey.verifyES256(signature: signature, message: message) == .mismatch)
    }

    /// Enough signatures that r or s shorter than 32 bytes occurs (about 1 in 128 each; none in
    /// 2000 has a chance below 10^-6): every one is 64 bytes and verifies, its DER form too.
    @Test func manySignaturesPadShortComponents() throws {
        let key = try #require(try Self.keyFile().privateKey)
        var short = 0
        for index in 0..<2000 {
            let message = Array("message \(index)".utf8)
            let der = try key.signDER(message)
            let raw = try #require(PrivateKey.rawSignature(der: der))
            #expect(raw.count == 64)
            if raw[0] == 0 || raw[32] == 0 { short += 1 }
            #expect(key.publicKey.verifyES256(signature: raw, message: message) == nil)
            #expect(key.publicKey.verifyDER(signature: der, message: message))
        }
        #expect(short > 0, "no short r or s in 2000 signatures")
    }

    /// The DER -> r || s conversion, on hand-made DER: small values left-padded, a 33-byte
    /// INTEGER with its sign byte accepted, too long values and trailing bytes refused.
    @Test func derToRawConversion() {
        let one: [UInt8] = [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02]
        #expect(
            PrivateKey.rawSignature(der: one) == [UInt8](repeating: 0, count: 31) + [1]
                + [UInt8](repeating: 0, count: 31) + [2])
        let high = [UInt8](repeating: 0xff, count: 32)
        let signed: [UInt8] = [0x30, 0x26, 0x02, 0x21, 0x00] + high + [0x02, 0x01, 0x05]
        #expect(PrivateKey.rawSignature(der: signed) == high + [UInt8](repeating: 0, count: 31) + [5])
        let tooLong: [UInt8] = [0x30, 0x26, 0x02, 0x21, 0x01] + high + [0x02, 0x01, 0x05]
        #expect(PrivateKey.rawSignature(der: tooLong) == nil)
        #expect(PrivateKey.rawSignature(der: one + [0]) == nil)
        #expect(PrivateKey.rawSignature(der: []) == nil)
        #expect(PrivateKey.rawSignature(der: Array("garbage".utf8)) == nil)
    }

    /// The private key never shows in a description, a debug description or a dump.
    @Test func privateKeyIsNeverDescribed() throws {
        let testKey = TestKey.p256()
        let key = try #require(try Self.keyFile(testKey).privateKey)
        let body = testKey.privateKeyPEM.split(separator: "\n")[1]
        var dumped = ""
        dump(key, to: &dumped)
        for text in [String(describing: key), String(reflecting: key), dumped, "\(key)"] {
            #expect(!text.contains(body))
            #expect(text.contains("EC P-256 private key"))
        }
    }

    // MARK: Key files

    @Test func keyFileKinds() throws {
        let testKey = TestKey.p256()
        let file = try Self.keyFile(testKey)
        #expect(file.privateKey != nil && file.keyIDFromName == "ABCDE12345")
        #expect(file.publicKey.summary == "EC P-256")
        let publicFile = try KeyFile(bytes: Array(testKey.publicKeyPEM.utf8), path: "public.pem")
        #expect(publicFile.privateKey == nil && publicFile.keyIDFromName == nil)
        let message = Array("m".utf8)
        #expect(
            publicFile.publicKey.verifyES256(signature: try file.privateKey!.signES256(message), message: message)
                == nil)
    }

    @Test func unusableKeyFiles() {
        let root = TestPKI.issue(
            CertificateSpec(commonName: "x", notBefore: Date(timeIntervalSince1970: 0), notAfter: Date(), isCA: true),
            issuer: nil)
        let cases: [(String, String)] = [
            (root.pem, "a certificate, not a key"),
            (TestPKI.rsaPrivateKeyPEM(), "an RSA 2048 private key"),
            (TestKey.p384().privateKeyPEM, "an EC P-384 private key"),
            (TestKey.p384().publicKeyPEM, "an EC P-384 public key"),
            (TestKey.p256().encryptedPrivateKeyPEM(password: "secret"), "an encrypted private key"),
            ("not a key at all\n", "not a PEM key"),
            ("", "empty"),
            (" \n\n", "empty"),
            (
                "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
                "a PRIVATE KEY block OpenSSL cannot read"
            ),
            ("-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n", "SEC1"),
            ("-----BEGIN X-----\nAAAA\n-----END X-----\n", "a PEM X, not a key"),
        ]
        for (text, expected) in cases {
            #expect {
                _ = try KeyFile(bytes: Array(text.utf8), path: "k.p8")
            } throws: { error in
                guard case .unusable(let path, let what) = error as? KeyFile.LoadError else { return false }
                return path == "k.p8" && what.contains(expected) && !what.contains("\n")
            }
        }
    }

    @Test func unreadableKeyFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for path in [folder.appendingPathComponent("missing.p8").path, folder.path] {
            #expect {
                _ = try KeyFile.load(path: path)
            } throws: { error in
                guard case .unreadable(let named, _) = error as? KeyFile.LoadError else { return false }
                return named == path
            }
        }
        let keyPath = folder.appendingPathComponent("AuthKey_Z9Y8X7W6V5.p8").path
        try Data(TestKey.p256().privateKeyPEM.utf8).write(to: URL(fileURLWithPath: keyPath))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyPath)
        #expect(try KeyFile.load(path: keyPath).keyIDFromName == "Z9Y8X7W6V5")
        #expect(!KeyFile.isReadableByGroupOrOthers(path: keyPath))
        for mode in [0o640, 0o604, 0o644] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: keyPath)
            #expect(KeyFile.isReadableByGroupOrOthers(path: keyPath))
        }
    }

    @Test func keyIDFromFileName() {
        #expect(KeyFile.keyID(fromFileName: "AuthKey_2X9R4HXF34.p8") == "2X9R4HXF34")
        #expect(KeyFile.keyID(fromFileName: "/keys/SubscriptionKey_ABC123.p8") == "ABC123")
        for name in ["AuthKey_.p8", "AuthKey_2X9R4HXF34.pem", "key.p8", "AuthKey_2X9R 4.p8", "xAuthKey_A.p8"] {
            #expect(KeyFile.keyID(fromFileName: name) == nil, "\(name)")
        }
    }
}
