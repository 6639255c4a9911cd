// MSAA order-independent transparency at pixel rate, as nvpro-samples' interlock variant does it:
// one invocation per pixel reads which of its samples the fragment covers (gl_SampleMaskIn) and
// updates those samples' entries inside the ordered critical section. Reading the coverage mask
// is what makes a GFX10.3+ driver keep the shading rate at 1x1.
// expect: model=Fragment interlock=pixel-ordered begin=1 end=1 begin_divergent=false end_divergent=false per_sample=false writes_memory=true accesses_memory=true color=true early=false sample_mask=true
#version 460
#extension GL_ARB_fragment_shader_interlock : require

layout(pixel_interlock_ordered) in;

layout(std430, binding = 0) coherent buffer Samples {
    uint count[]; // per pixel and sample: fragments seen
};
layout(push_constant) uniform Push {
    uint width;
    uint samples;
};

layout(location = 0) out vec4 color;

void main() {
    uint pixel = uint(gl_FragCoord.y) * width + uint(gl_FragCoord.x);
    uint mask = uint(gl_SampleMaskIn[0]);
    beginInvocationInterlockARB();
    for (uint s = 0u; s < samples; ++s) {
        if ((mask & (1u << s)) != 0u) {
            count[pixel * samples + s] += 1u;
        }
    }
    endInvocationInterlockARB();
    color = vec4(1.0);
}
