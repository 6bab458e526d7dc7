import Foundation
import Testing

@testable import JWSInspectCore

@Suite struct EmbeddedRootsTests {
    /// Apple's published SHA-256 fingerprints (https://www.apple.com/certificateauthority/).
    static let published = [
        "AppleRootCA-G3.cer":
            "63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79",
        "AppleRootCA-G2.cer":
            "C2:B9:B0:42:DD:57:83:0E:7D:11:7D:AC:55:AC:8A:E1:94:07:D3:8E:41:D8:8F:32:15:BC:3A:89:04:44:A0:50",
        "AppleIncRootCertificate.cer":
            "B0:B1:73:0E:CB:C7:FF:45:05:14:2C:49:F1:29:5E:6E:DA:6B:CA:ED:7E:2C:68:C5:BE:91:B5:A1:10:01:F0:24",
    ]

    @Test func embeddedBytesEqualCertificatesFolder() throws {
        let files = AppleCertificates.embeddedRootFiles
        #expect(files.map(\.fileName).sorted() == Self.published.keys.sorted())
        let folder = try FileManager.default.contentsOfDirectory(
            atPath: Fixtures.packageRoot.appendingPathComponent("Certificates").path)
        #expect(folder.filter { $0.hasSuffix(".cer") }.sorted() == Self.published.keys.sorted())
        for file in files {
            #expect(
                file.derBytes == (try Fixtures.bytes("Certificates/\(file.fileName)")),
                "\(file.fileName) differs; run make roots")
        }
    }

    @Test func fingerprintsEqualApplesPublishedOnes() throws {
        for file in AppleCertificates.embeddedRootFiles {
            let published = try #require(Self.published[file.fileName]).replacingOccurrences(of: ":", with: "")
                .lowercased()
            #expect(Digest.sha256(file.derBytes).hexString() == published, "\(file.fileName)")
            #expect(AppleCertificates.known[published]?.isDefaultRoot == true)
        }
    }

    @Test func embeddedRootsAreSelfSignedAppleRoots() {
        let names = AppleCertificates.embeddedRoots.map { $0.commonName ?? "" }
        #expect(names == ["Apple Root CA - G3", "Apple Root CA - G2", "Apple Root CA"])
        #expect(AppleCertificates.embeddedRoots.allSatisfy { $0.isSelfIssued })
    }
}
