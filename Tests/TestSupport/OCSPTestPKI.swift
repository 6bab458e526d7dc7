internal import AppStoreTestData
package import Foundation
package import TestPKI

/// An Apple-shaped PKI whose certificates name real OCSP responders on loopback
/// (`OCSPResponder`), one chain per case a revocation check must tell apart. Certificates are
/// valid around the real present (OCSP is asked now); a token's `signedDate` is an hour ago.
///
/// Responders: the leaves' (CA: the intermediate, signed by a responder it delegated with
/// `id-kp-OCSPSigning`), the intermediates' (CA: the root, signed by the root itself), one
/// signed by a stranger's key, one by a certificate the intermediate issued without
/// `id-kp-OCSPSigning`; and two ports that never answer (one hangs, one refuses).
package final class OCSPTestPKI: Sendable {
    package enum Case: String, CaseIterable, Sendable {
        case good, revokedLeaf, revokedIntermediate, unknown, wrongKey, undelegated, noNextUpdate, hanging, down
        case hangingUp
        case noResponder
    }

    package let root: TestCertificate
    /// `root.der` in the folder: the root as `--root` takes it.
    package let rootPath: String
    package let chains: [Case: AppleShapedChain]
    /// Receipt chains (RSA, as Apple's): the leaf good, or revoked, by a responder the RSA
    /// intermediate signs for itself; the intermediate valid, by the intermediates' responder.
    package let goodReceiptChain: TestReceiptChain
    package let revokedReceiptChain: TestReceiptChain
    /// The leaves' responder and the intermediates' (the others are not stopped by tests).
    package let leafResponder: OCSPResponder
    package let intermediateResponder: OCSPResponder
    /// When the revoked certificates were revoked.
    package let revocationDate: Date
    private let others: [OCSPResponder]
    private let ports: [LoopbackPort]

    package init(folder: URL) throws {
        let now = Date()
        let start = now.addingTimeInterval(-30 * 86_400)
        let end = now.addingTimeInterval(365 * 86_400)
        revocationDate = Date(timeIntervalSince1970: (now.timeIntervalSince1970 - 86_400).rounded(.down))
        func spec(_ name: String, serial: UInt64, isCA: Bool, url: String? = nil, usage: String? = nil)
            -> CertificateSpec
        {
            CertificateSpec(
                commonName: name, serial: serial, notBefore: start, notAfter: end, isCA: isCA,
                markerOIDs: isCA
                    ? [CertificateIssuer.intermediateOID] : usage == nil ? [CertificateIssuer.leafOID] : [],
                ocspURL: url, extendedKeyUsage: usage)
        }
        let root = TestPKI.issue(
            CertificateSpec(
                commonName: "jwsinspect OCSP test Root CA", notBefore: start, notAfter: end, isCA: true),
            key: .p384(), issuer: nil)
        self.root = root
        rootPath = folder.appendingPathComponent("root.der").path
        try Data(root.der).write(to: URL(fileURLWithPath: rootPath))
        // The intermediates' responder answers for serials 2 (valid) and 5 (revoked) under the root.
        let intermediates = try OCSPResponder(
            folder: folder, name: "intermediates", ca: root, signer: root,
            entries: [
                .init(serial: 2), .init(serial: 5, revoked: (revocationDate, "cACompromise")), .init(serial: 20),
            ])
        let intermediate = TestPKI.issue(
            spec("jwsinspect OCSP test intermediate", serial: 2, isCA: true, url: intermediates.url), key: .p384(),
            issuer: root)
        let revokedIntermediate = TestPKI.issue(
            spec("jwsinspect OCSP test revoked intermediate", serial: 5, isCA: true, url: intermediates.url),
            key: .p384(), issuer: root)
        let delegated = TestPKI.issue(
            spec("jwsinspect OCSP test responder", serial: 100, isCA: false, usage: "OCSPSigning"), issuer: intermediate
        )
        let leaves = try OCSPResponder(
            folder: folder, name: "leaves", ca: intermediate, signer: delegated,
            entries: [.init(serial: 3), .init(serial: 4, revoked: (revocationDate, "keyCompromise"))])
        let stranger = TestPKI.issue(
            spec("jwsinspect OCSP test stranger", serial: 1, isCA: false, usage: "OCSPSigning"), issuer: nil)
        let strangers = try OCSPResponder(
            folder: folder, name: "stranger", ca: intermediate, signer: stranger, entries: [.init(serial: 8)])
        let undelegatedSigner = TestPKI.issue(
            spec("jwsinspect OCSP test undelegated", serial: 101, isCA: false, usage: "clientAuth"),
            issuer: intermediate)
        let undelegated = try OCSPResponder(
            folder: folder, name: "undelegated", ca: intermediate, signer: undelegatedSigner,
            entries: [.init(serial: 9)])
        let receiptIntermediate = TestPKI.issue(
            spec("jwsinspect OCSP test receipt intermediate", serial: 20, isCA: true, url: intermediates.url),
            key: .rsa(), issuer: root)
        let receiptLeaves = try OCSPResponder(
            folder: folder, name: "receipt-leaves", ca: receiptIntermediate, signer: receiptIntermediate,
            entries: [.init(serial: 21), .init(serial: 22, revoked: (revocationDate, "superseded"))])
        func receiptChain(_ serial: UInt64) -> TestReceiptChain {
            let leaf = TestPKI.issue(
                spec(
                    "jwsinspect OCSP test receipt leaf \(serial)", serial: serial, isCA: false, url: receiptLeaves.url),
                key: .rsa(), issuer: receiptIntermediate)
            return TestReceiptChain(root: root, intermediate: receiptIntermediate, leaf: leaf)
        }
        goodReceiptChain = receiptChain(21)
        revokedReceiptChain = receiptChain(22)
        // Answers without nextUpdate, signed by the intermediate itself.
        let timeless = try OCSPResponder(
            folder: folder, name: "timeless", ca: intermediate, signer: intermediate, entries: [.init(serial: 14)],
            days: nil)
        let hanging = LoopbackPort.hanging()
        let down = LoopbackPort.refusing()
        let hangingUp = LoopbackPort.resetting()

        func leaf(_ serial: UInt64, _ url: String?, under issuer: TestCertificate = intermediate) -> AppleShapedChain {
            let leaf = TestPKI.issue(
                spec("jwsinspect OCSP test leaf \(serial)", serial: serial, isCA: false, url: url), issuer: issuer)
            return AppleShapedChain(root: root, intermediate: issuer, leaf: leaf)
        }
        chains = [
            .good: leaf(3, leaves.url),
            .revokedLeaf: leaf(4, leaves.url),
            .revokedIntermediate: leaf(6, nil, under: revokedIntermediate),
            .unknown: leaf(7, leaves.url),
            .wrongKey: leaf(8, strangers.url),
            .undelegated: leaf(9, undelegated.url),
            .hanging: leaf(10, hanging.url),
            .down: leaf(11, down.url),
            .hangingUp: leaf(13, hangingUp.url),
            .noNextUpdate: leaf(14, timeless.url),
            .noResponder: leaf(12, nil),
        ]
        leafResponder = leaves
        intermediateResponder = intermediates
        others = [strangers, undelegated, receiptLeaves, timeless]
        ports = [hanging, down, hangingUp]
    }

    /// A receipt signed an hour ago (its creation date: the chain's check time) by `chain`.
    package func receipt(_ chain: TestReceiptChain) -> [UInt8] {
        chain.sign(ReceiptBuilder(creationDate: Date().addingTimeInterval(-3_600)).der())
    }

    /// A token of `chain`, signed an hour ago (its `signedDate`: the chain's check time).
    package func token(_ chain: Case, transactionId: String = "2000000000000001") -> String {
        let signed = Int64((Date().timeIntervalSince1970 - 3_600) * 1_000)
        return chains[chain]!.sign(
            payloadJSON: TestPayloads.transaction(signedDate: signed, transactionId: transactionId))
    }
}
