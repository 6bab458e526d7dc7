import Foundation
import Testing

@testable import JWSInspectCore

/// Project Wycheproof's ECDSA P-256 / SHA-256 vectors in IEEE P1363 form (the raw r||s
/// that ES256 uses), run through the same ES256 check tokens go through.
@Suite struct WycheproofTests {
    struct Vectors: Decodable {
        struct Group: Decodable {
            let publicKeyDer: String
            let sha: String
            let tests: [Case]
        }
        struct Case: Decodable {
            let tcId: Int
            let comment: String
            let msg: String
            let sig: String
            let result: String
        }
        let numberOfTests: Int
        let testGroups: [Group]
    }

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    @Test func everyVectorGetsTheExpectedAnswer() throws {
        let data = try Data(
            contentsOf: Fixtures.packageRoot.appendingPathComponent(
                "Tests/Vectors/wycheproof/ecdsa_secp256r1_sha256_p1363_test.json"))
        let vectors = try JSONDecoder().decode(Vectors.self, from: data)
        var checked = 0
        var valid = 0
        var invalid = 0
        for group in vectors.testGroups {
            #expect(group.sha == "SHA-256")
            let key = PublicKey(subjectPublicKeyInfo: Self.hex(group.publicKeyDer))
            for test in group.tests {
                checked += 1
                // A key OpenSSL refuses verifies nothing.
                let failure =
                    key.map { $0.verifyES256(signature: Self.hex(test.sig), message: Self.hex(test.msg)) } ?? .mismatch
                switch test.result {
                case "valid":
                    valid += 1
                    #expect(failure == nil, "tcId \(test.tcId) (\(test.comment)) must verify")
                case "invalid":
                    invalid += 1
                    #expect(failure != nil, "tcId \(test.tcId) (\(test.comment)) must be refused")
                default:
                    break  // "acceptable": either answer is allowed
                }
                // The digest path used for tokens, and the EVP_PKEY_verify path used where
                // OpenSSL lacks the EC_KEY interface, give the same answer.
                if let key {
                    let digest = Digest.sha256(Self.hex(test.msg))
                    let viaDigest = key.verifyES256(signature: Self.hex(test.sig), digest: digest)
                    #expect((viaDigest == nil) == (failure == nil), "tcId \(test.tcId)")
                    let viaEVP = key.verifyES256ThroughEVP(signature: Self.hex(test.sig), digest: digest)
                    #expect((viaEVP == nil) == (failure == nil), "tcId \(test.tcId) through EVP")
                }
            }
        }
        #expect(checked == vectors.numberOfTests)
        #expect(checked == 262 && valid == 173 && invalid == 89)
    }
}
