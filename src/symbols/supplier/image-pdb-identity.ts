// The PDB name and debug id an image's own debug directory gives, when the dump has no CodeView
// record for its module (Wine's dumps): only from the very build the dump names (its code id,
// TimeDateStamp + SizeOfImage); why a candidate is refused goes into `notes`.
import { AbortedError, shortErrorMessage } from '../../errors.js';
import { PositionedFileReader } from '../../minidump/file-reader.js';
import { readImageIdentity } from '../index.js';

export async function imagePdbIdentity(
  place: string,
  codeId: string,
  notes: string[],
): Promise<{ pdbName: string; debugId: string } | undefined> {
  let reader: PositionedFileReader | undefined;
  try {
    reader = await PositionedFileReader.open(place);
    const image = await readImageIdentity(reader, place);
    if (image.codeId.toUpperCase() !== codeId.toUpperCase()) {
      notes.push(`${place} is another build (${image.codeId}, the dump has ${codeId})`);
      return undefined;
    }
    const cv = image.codeView;
    if (cv?.pdbName !== undefined && cv.debugId !== undefined) {
      return { pdbName: cv.pdbName, debugId: cv.debugId };
    }
    notes.push(`${place} has no CodeView (PDB) record`);
  } catch (error) {
    if (error instanceof AbortedError) throw error;
    notes.push(shortErrorMessage(error));
  } finally {
    await reader?.close();
  }
  return undefined;
}
