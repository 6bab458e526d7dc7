internal import FoundationEssentials

extension InputStream {
    /// A whole input that is a raw PKCS#7 receipt (DER or BER, as a `.der` file or
    /// `appStoreReceiptURL` holds it): read to its end, at most `CMSSignedData.maximumSize`
    /// bytes kept. Nil, with nothing consumed, for any other input.
    mutating func binaryReceipt() -> Record? {
        // The longest SignedData start: 6 bytes of tag and length, 11 of OID.
        let needed = 6 + LegacyReceipt.signedDataOID.count
        while buffer.count - position < needed, fill() {}
        let start = Array(buffer[position..<min(buffer.count, position + needed)])
        guard LegacyReceipt.startsSignedData(start) else { return nil }
        let limit = CMSSignedData.maximumSize
        var size = buffer.count - position
        var bytes: [UInt8] = Array(buffer[position...])
        position = buffer.count
        while fill() {
            size += buffer.count - position
            if size <= limit { bytes += buffer[position...] } else { bytes = [] }
            position = buffer.count
        }
        guard size <= limit else {
            return Record(origin: origin, numberLines: false, number: 1, content: .receiptOverLimit(size), limit: limit)
        }
        return Record(origin: origin, numberLines: false, number: 1, content: .receipt(bytes), limit: limit)
    }

    /// A receipt in base64 text starting on the line `first`, wrapped or not: the following
    /// lines are joined while they hold base64 characters only, until the receipt is complete
    /// (as many characters as its outer DER length needs: so unpadded receipts one per line stay
    /// one per line), one holds padding, or a live input would wait. A line that starts another
    /// item (a receipt, or a JWS header wrapped by `fold`: `LegacyReceipt.startsAnotherItem`)
    /// is never joined. The line that stops it starts the next record. Past what
    /// `CMSSignedData.maximumSize` bytes need (base64 characters counted, not line breaks), the
    /// lines are still read but no longer kept: decoding then refuses the text by its size.
    mutating func receiptText(_ first: [UInt8], number: Int) -> Record {
        // BER's indefinite length (Xcode's receipts) says nothing of where the receipt ends.
        let text = base64Lines(
            first, census: LegacyReceipt.Census(first), needed: LegacyReceipt.base64Length(first) ?? .max,
            maximumSize: CMSSignedData.maximumSize)
        return Record(
            origin: origin, numberLines: numberLines, number: number, content: .receiptText(text), limit: limit)
    }

    /// A StoreKit 1 transaction receipt in base64 text (`TransactionReceiptText`) starting on the
    /// line `first`, wrapped or not: the following lines are joined while they hold base64
    /// characters only, until one holds padding, starts another item
    /// (`LegacyReceipt.startsAnotherItem`: a line of another transaction receipt, a receipt, a
    /// JWS header wrapped by `fold`), or a live input would wait. Nothing says where an unpadded
    /// one ends but the next line: one per line, each its own. Past what
    /// `TransactionReceiptEnvelope.maximumSize` bytes need, the lines are still read but no
    /// longer kept: decoding then refuses the text by its size.
    mutating func transactionReceiptText(_ first: [UInt8], number: Int) -> Record {
        // A first line that is not base64 text alone is joined to nothing.
        let census = LegacyReceipt.Census(first)
        let text = base64Lines(
            first, census: census, needed: census.onlyBase64Text ? .max : 0,
            maximumSize: TransactionReceiptEnvelope.maximumSize)
        return Record(
            origin: origin, numberLines: numberLines, number: number, content: .transactionReceiptText(text),
            limit: limit)
    }

    /// `first` (its `census` read) and the lines after it joined by newlines, while they hold base64 characters
    /// only, until `needed` characters are read, one holds padding, one starts another item
    /// (`LegacyReceipt.startsAnotherItem`) or a live input would wait; the line that stops it
    /// starts the next record. Padding ends base64: each line is looked at once (the whole
    /// text again would be quadratic). Past what `maximumSize` bytes need (base64 characters
    /// counted, not line breaks), the lines are still read but no longer kept: decoding then
    /// refuses the text by its size.
    private mutating func base64Lines(
        _ first: [UInt8], census: LegacyReceipt.Census, needed: Int, maximumSize: Int
    ) -> [UInt8] {
        let maximumCharacters = (maximumSize + 2) / 3 * 4
        var text = first
        var characters = census.characters
        var padded = census.padded
        while !padded, characters < needed, !liveInputWouldWait, let next = nextLine(skippingBlank: false) {
            let joined =
                next.range.map { range in
                    buffer.withUnsafeBufferPointer { bytes -> Bool in
                        let line = UnsafeBufferPointer(rebasing: bytes[range])
                        let census = LegacyReceipt.Census(line)
                        guard census.hasText, census.onlyBase64Text, !LegacyReceipt.startsAnotherItem(line)
                        else { return false }
                        padded = census.padded
                        let kept = characters <= maximumCharacters
                        characters += census.characters
                        guard kept else { return true }
                        text.append(UInt8(ascii: "\n"))
                        text.append(contentsOf: line)
                        return true
                    }
                } ?? false
            if !joined {
                pending = next
                break
            }
        }
        return text
    }
}
