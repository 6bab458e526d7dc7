import AppStoreTestData
import Foundation
import JWSInspectCore
import Testing

/// What `jwsinspect mint` ships: every failure is a thrown `MintError` (or the core's
/// `SigningError`) with a message, never a trap; certificates and signatures are made with the
/// core's `PrivateKey` and read back with its `Certificate`.
@Suite struct AppStoreTestDataTests {
    static let now = Date(timeIntervalSince1970: 1_767_225_600)

    @Test func aMintedCAIsReadBackByTheCoreAndSignsWithTheCoresKey() throws {
        let ca = try MintedCA(validDays: 30, now: Self.now)
        #expect(ca.root.certificate.commonName == MintedCA.rootCN)
        #expect(ca.leaf.certificate.extensionOIDs.contains(CertificateIssuer.leafOID))
        #expect(ca.intermediate.certificate.extensionOIDs.contains(CertificateIssuer.intermediateOID))
        #expect(ca.leaf.certificate.notAfter == Self.now.addingTimeInterval(30 * 86_400))
        let message = Array("header.payload".utf8)
        let signature = try ca.leaf.key.signES256(message)
        #expect(ca.leaf.certificate.publicKey?.verifyES256(signature: signature, message: message) == nil)
        // Written and read back: the same certificates.
        let files = Dictionary(uniqueKeysWithValues: try ca.files().map { ($0.name, $0.bytes) })
        let read = try MintedCA(
            rootDER: files["root.der"]!, rootKey: files["root-key.p8"]!, intermediateDER: files["intermediate.der"]!,
            intermediateKey: files["intermediate-key.p8"]!, leafDER: files["leaf.der"]!, leafKey: files["leaf-key.p8"]!)
        #expect(read.leaf.der == ca.leaf.der && read.root.der == ca.root.der)
        #expect(read.leaf.spec.notBefore == ca.leaf.spec.notBefore)
        #expect(
            files["leaf-key.p8"].map { String(decoding: $0, as: UTF8.self) }?.hasPrefix("-----BEGIN PRIVATE KEY")
                == true)
    }

    @Test func aFileThatIsNotWhatMintCAWroteThrowsNamingIt() throws {
        let files = Dictionary(
            uniqueKeysWithValues: try MintedCA(validDays: 1, now: Self.now).files().map {
                ($0.name, $0.bytes)
            })
        do {
            _ = try MintedCA(
                rootDER: files["root.der"]!, rootKey: files["root-key.p8"]!,
                intermediateDER: files["intermediate.der"]!,
                intermediateKey: files["intermediate-key.p8"]!, leafDER: [0x30, 0x03, 0x02, 0x01, 0x01],
                leafKey: files["leaf-key.p8"]!)
            Issue.record("a leaf.der that is not a certificate was read")
        } catch {
            #expect(error.description.hasPrefix("leaf.der is not a DER X.509 certificate"), "\(error)")
        }
        do {
            // The root's P-384 key where the leaf's P-256 key belongs.
            _ = try MintedCA(
                rootDER: files["root.der"]!, rootKey: files["root-key.p8"]!,
                intermediateDER: files["intermediate.der"]!,
                intermediateKey: files["intermediate-key.p8"]!, leafDER: files["leaf.der"]!,
                leafKey: files["root-key.p8"]!)
            Issue.record("a P-384 leaf key was read")
        } catch {
            #expect(error.description == "leaf-key.p8 is not a PKCS#8 P-256 private key")
        }
    }

    @Test func whatOpenSSLRefusesIsThrownWithItsCall() throws {
        let key = try PrivateKey.generate(.ec(.p256))
        let spec = CertificateSpec(
            commonName: "x", notBefore: Self.now, notAfter: Self.now, isCA: false, markerOIDs: ["not an OID"])
        #expect {
            _ = try CertificateIssuer.issue(spec, key: key, issuer: nil)
        } throws: { error in
            "\(error)".contains("OBJ_txt2obj(\"not an OID\")")
        }
        #expect {
            _ = try PrivateKey.generate(.rsa(bits: 64))
        } throws: { error in
            "\(error)" == "an RSA key of 64 bits is not made"
        }
        let outOfRange = CertificateSpec(
            commonName: "x", notBefore: Date(timeIntervalSince1970: 1e16), notAfter: Self.now, isCA: false)
        #expect {
            _ = try CertificateIssuer.issue(outOfRange, key: key, issuer: nil)
        } throws: { error in
            "\(error)" == "the notBefore date is out of range"
        }
    }

    @Test func signingWithTheWrongKeyThrows() throws {
        let p384 = try PrivateKey.generate(.ec(.p384))
        #expect {
            _ = try p384.signES256(Array("m".utf8))
        } throws: { error in
            "\(error)".hasPrefix("ES256 needs a P-256 key")
        }
        // ES384 through the same wrapper: 96 bytes that verify as DER once re-encoded.
        let raw = try p384.signRaw(Array("m".utf8), digest: .sha384, curve: .p384)
        #expect(raw.count == 96)
        #expect {
            _ = try p384.signRaw(Array("m".utf8), digest: .sha384, curve: .p256)
        } throws: { error in
            "\(error)".contains("did not decode for P-256")
        }
    }
}
