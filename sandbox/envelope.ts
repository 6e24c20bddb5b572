// The service's response envelope and the error the sandbox's handlers throw to answer with one.
export interface Envelope {
  code: number;
  status: string;
  message: string;
  data: unknown;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: Record<string, unknown> | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
  envelope(): Envelope {
    return { code: this.code, status: 'error', message: this.message, data: this.data };
  }
}

/** 422 for a bad value of a request field; the message starts with the field's name. */
export const badField = (field: string, message: string, code = 422): ApiError =>
  new ApiError(code, message, { field });

export const missingField = (field: string): ApiError => badField(field, `${field} is required`, 400);

export function success(code: number, status: string, message: string, data: unknown): Envelope {
  return { code, status, message, data };
}
